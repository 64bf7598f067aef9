# rtkit_add_plugin(NAME KIND SOURCES ...)
#
# Builds a plugin library named rtkit_<KIND>_<NAME> (no "lib" prefix) with hidden
# symbol visibility, so only the descriptor alias is exported. In the rtkit tree
# it lands in lib/rtkit/plugins/ where the loader finds built-in plugins; the
# same function is what the installed CMake package gives third parties.
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
