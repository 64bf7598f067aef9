# rtkit_add_plugin(NAME KIND SOURCES ...)
#
# Builds a plugin library named rtkit_<KIND>_<NAME> (no "lib" prefix) that exports
# the descriptor alias and nothing else. KIND is reactor, timer or lanes; NAME is
# what a configuration asks for ([reactor] plugin = "NAME").
#
# The same function serves the rtkit tree and, through find_package(rtkit), third
# parties. Two optional variables, read when it is called:
#   RTKIT_PLUGIN_OUTPUT_DIR   where the file is built (the rtkit tree sets
#                             lib/rtkit/plugins; unset: the usual output directory)
#   RTKIT_PLUGIN_INSTALL_DIR  adds an install rule to this directory (relative to
#                             the install prefix); unset: no install rule
function(rtkit_add_plugin NAME KIND)
  set(target rtkit_${KIND}_${NAME})
  add_library(${target} MODULE ${ARGN})
  if(TARGET rtkit_headers)
    target_link_libraries(${target} PRIVATE rtkit_headers)
  else()
    target_link_libraries(${target} PRIVATE rtkit::headers)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # Hidden visibility is not enough: headers that mark their classes visible
  # (Boost.System's error categories, pulled in by Boost.DLL) and unique
  # template statics would still be exported. The linker keeps only the alias,
  # rtkit_plugin_descriptor_vMAJOR.
  if(APPLE)
    target_link_options(${target} PRIVATE "LINKER:-exported_symbol,_rtkit_plugin_descriptor_v*")
  elseif(UNIX)
    set(exports ${CMAKE_BINARY_DIR}/rtkit_plugin_exports.map)
    file(CONFIGURE OUTPUT ${exports}
      CONTENT "{\n  global: rtkit_plugin_descriptor_v*;\n  local: *;\n};\n")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${exports}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${exports})
  endif()
  if(DEFINED RTKIT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${RTKIT_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED RTKIT_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${RTKIT_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
