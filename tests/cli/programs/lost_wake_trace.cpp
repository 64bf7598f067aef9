// Writes a trace in which the kernel saw a lost wake-up and a large coroutine
// frame, for `rtctl inspect`'s test (rtctl_inspect_trace_test.cpp): both come
// from C++ tasks, which a script cannot write.
//
//     rtkit_lost_wake_trace TRACE.json
#include <array>
#include <coroutine>
#include <cstdio>

#include "rtkit/rtkit.hpp"

using namespace rtkit;

namespace {

/// Takes its task's waker and drops it before suspending: nothing can wake
/// the task any more.
struct drops_its_waker {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) { (void)current_waker(); }
    void await_resume() const noexcept {}
};

task<void> forgotten() {
    co_await drops_its_waker{};
}

/// 40,000 bytes of locals across an await: all in the frame.
task<std::size_t> hog() {
    std::array<char, 40000> bytes{};
    co_await yield_now();
    bytes[0] = 1;
    co_return bytes.size() + bytes[0];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s TRACE.json\n", argv[0]);
        return 2;
    }
    runtime_config config;
    config.trace.enabled = true;
    config.trace.file = argv[1];
    runtime rt(config);
    rt.block_on([]() -> task<void> {
        (void)spawn("forgotten", forgotten());  // the runtime's shutdown cancels it
        (void)co_await spawn("hog", hog());
    }());
    return 0;
}
