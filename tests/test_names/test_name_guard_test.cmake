# cmake -P test_name_guard_test.cmake: the guard of test_name_guard.cmake flags
# every bad name form and no good one.
include(${CMAKE_CURRENT_LIST_DIR}/test_name_guard.cmake)

set(bad_sources
  "TEST_CASE(\"plain, with a comma\") {"
  "TEST_CASE(\"with a semicolon\; here\") {"
  "TEST_CASE(\n    \"split over \"\n    \"two literals, with a comma\") {"
  "TEST_CASE(\"an \\\"escaped\\\" quote, then a comma\") {"
  "TEST_CASE(\"first part\" \"second\" \"third, part\") {")
set(good_sources
  "TEST_CASE(\"a - b\") {"
  "TEST_CASE(\n    \"split over \"\n    \"two literals - no comma\") {\n  CHECK(f(1, 2));"
  "TEST_CASE(\"an \\\"escaped\\\" quote - fine\") { call(a, b);"
  "TEST_CASE(\"x\") { int a, b; }")

foreach(source IN LISTS bad_sources)
  rtkit_bad_test_name("${source}" found)
  if(found STREQUAL "")
    message(FATAL_ERROR "the guard missed a bad name in: ${source}")
  endif()
endforeach()
foreach(source IN LISTS good_sources)
  rtkit_bad_test_name("${source}" found)
  if(NOT found STREQUAL "")
    message(FATAL_ERROR "the guard flagged a good name: ${found}")
  endif()
endforeach()
message(STATUS "test name guard: every bad form flagged, no good one")
