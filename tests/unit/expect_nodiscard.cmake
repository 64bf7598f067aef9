# cmake -DCOMPILER=... -DINCLUDE=... -DSOURCE=... -P expect_nodiscard.cmake
# Compiles SOURCE and fails unless the compiler reports no error and warns of
# a discarded [[nodiscard]] value on every line marked "// discarded".
execute_process(COMMAND ${COMPILER} -std=c++20 -fsyntax-only -I${INCLUDE} ${SOURCE}
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR out MATCHES "error:")
  message(FATAL_ERROR "the file does not compile:\n${out}")
endif()
file(STRINGS ${SOURCE} lines)
set(number 0)
set(missing "")
foreach(line IN LISTS lines)
  math(EXPR number "${number} + 1")
  if(line MATCHES "// discarded$")
    get_filename_component(name ${SOURCE} NAME)
    if(NOT out MATCHES "${name}:${number}:[0-9]+: warning: ignoring return[^\n]*nodiscard")
      string(APPEND missing "  line ${number}: ${line}\n")
    endif()
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "no nodiscard warning for:\n${missing}compiler output:\n${out}")
endif()
