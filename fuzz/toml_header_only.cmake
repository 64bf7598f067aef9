# Included by the top-level CMakeLists.txt in the fuzz preset, before config/
# looks for toml++: defines tomlplusplus::tomlplusplus as the header-only
# library (its config file then keeps this target), so that the TOML parser
# is compiled into rtkit_config with the fuzzer's instrumentation instead of
# linked from Debian's uninstrumented libtomlplusplus.so.
#
# Its internal assertions stay off (toml_assertions_off.hpp), as in the
# library Debian ships: in this Debug build they would fire on inputs that the
# shipped parser rejects with an error (toml++ 3.3.0 asserts on "[$x]", which
# rtctl reports as "malformed TOML: ... saw '$'"). One known bug of that
# version is kept out of UBSan's reports: see sanitizer_ignorelist.txt.
add_library(tomlplusplus::tomlplusplus INTERFACE IMPORTED GLOBAL)
target_compile_definitions(tomlplusplus::tomlplusplus INTERFACE TOML_HEADER_ONLY=1)
target_compile_options(tomlplusplus::tomlplusplus INTERFACE
  -include ${CMAKE_CURRENT_LIST_DIR}/toml_assertions_off.hpp
  -fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitizer_ignorelist.txt)
target_compile_features(tomlplusplus::tomlplusplus INTERFACE cxx_std_17)
