// Must not compile: a task's header finds its frame from the promise's
// alignment, which may be 16 bytes at most. The message must say what to do
// instead (tests/unit/CMakeLists.txt checks it).
#include "rtkit/rtkit.hpp"

struct alignas(64) cache_line {
    char bytes[64];
};

rtkit::task<cache_line> make() {
    co_return cache_line{};
}
