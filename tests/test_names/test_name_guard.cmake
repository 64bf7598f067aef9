# rtkit_bad_test_name(SOURCE_TEXT OUT_VAR): sets OUT_VAR to the first doctest
# TEST_CASE name in SOURCE_TEXT that contains ',' or ';', or to "" when none does.
#
# doctest_discover_tests runs each case as --test-case=NAME inside a CMake list:
# a comma (doctest's filter separator) or a semicolon (CMake's list separator)
# in a name makes ctest run a filter that matches nothing and report it passed.
# The whole name is checked: every adjacent string literal of it, escaped
# quotes and all.
function(rtkit_bad_test_name SOURCE_TEXT OUT_VAR)
  # Semicolons would split the matches below into list elements: mark them.
  string(REPLACE ";" "<semicolon>" text "${SOURCE_TEXT}")
  # TEST_CASE( followed by one or more string literals, each of which may
  # contain escaped characters (\" included).
  set(literal "\"([^\"\\\\]|\\\\.)*\"")
  string(REGEX MATCHALL "TEST_CASE\\([ \t\r\n]*(${literal}[ \t\r\n]*)+" names "${text}")
  foreach(name IN LISTS names)
    if(name MATCHES ",|<semicolon>")
      string(REPLACE "<semicolon>" ";" name "${name}")
      set(${OUT_VAR} "${name}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${OUT_VAR} "" PARENT_SCOPE)
endfunction()
