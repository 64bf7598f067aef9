// Must not compile: awaiting a join handle takes the task's outcome, so it is
// awaited as an rvalue. The compiler's message must say to std::move it
// (tests/unit/CMakeLists.txt checks the message).
#include "rtkit/rtkit.hpp"

rtkit::task<int> child() {
    co_return 1;
}

rtkit::task<int> parent() {
    auto handle = rtkit::spawn(child());
    rtkit::outcome<int> result = co_await handle;
    co_return result.value();
}
