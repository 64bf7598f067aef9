// The one doctest runner every test program links: compiled once, since
// doctest's implementation is the slowest header in the suite to compile.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
