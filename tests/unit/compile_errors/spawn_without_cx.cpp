// Must not compile: spawn takes a task, or a callable that takes the new
// task's rtkit::cx. A callable without that parameter must be refused with
// one sentence that says so (tests/unit/CMakeLists.txt checks the message).
#include "rtkit/rtkit.hpp"

rtkit::task<int> parent() {
    auto handle = rtkit::spawn([]() -> rtkit::task<int> { co_return 1; });
    co_return (co_await std::move(handle)).value();
}
