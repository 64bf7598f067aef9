# rtkit_add_plugin(NAME KIND SOURCES ...)
#
# Builds a plugin library named rtkit_<KIND>_<NAME> (no "lib" prefix) with hidden
# symbol visibility, so only the descriptor alias is exported. KIND is reactor,
# timer or lanes; NAME is what a configuration asks for ([reactor] plugin = "NAME").
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
  if(DEFINED RTKIT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${RTKIT_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED RTKIT_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${RTKIT_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
