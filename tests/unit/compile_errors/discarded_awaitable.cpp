// Must warn: each awaitable the API returns is [[nodiscard]], so one called
// without co_await (which does nothing) is flagged by the compiler. Each line
// marked `// discarded` must draw its own warning, and nothing may fail
// (tests/unit/expect_nodiscard.cmake checks both).
#include <chrono>
#include <utility>
#include <vector>

#include "rtkit/rtkit.hpp"

rtkit::task<int> child() {
    co_return 1;
}

rtkit::task<void> forgets_to_await() {
    using namespace std::chrono_literals;
    rtkit::cx cx = rtkit::cx::current();
    std::vector<rtkit::task<int>> tasks;
    auto [tx, rx] = rtkit::sync::make_channel<int>(1);
    rtkit::sync::mutex m;
    rtkit::sync::semaphore s(1);

    rtkit::sleep(100ms);                                           // discarded
    cx.sleep(100ms);                                               // discarded
    cx.sleep_until(cx.now() + 100ms);                              // discarded
    rtkit::yield_now();                                            // discarded
    cx.yield_now();                                                // discarded
    rtkit::timeout(100ms, child());                                // discarded
    cx.timeout(100ms, child());                                    // discarded
    cx.region([](rtkit::cx) -> rtkit::task<void> { co_return; });  // discarded
    rtkit::join_all(std::move(tasks));                             // discarded
    rx.recv();                                                     // discarded
    tx.send(1);                                                    // discarded
    m.lock();                                                      // discarded
    s.acquire();                                                   // discarded
    co_return;
}
