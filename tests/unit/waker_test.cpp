#include <doctest/doctest.h>

#include <thread>

#include "fault_plugins.hpp"
#include "test_support.hpp"

using namespace rtkit;
using rtkit::test::manual_event;

namespace {

task<int> wait_twice(manual_event& first, manual_event& second, int& resumes) {
    co_await first.wait();
    ++resumes;
    co_await second.wait();
    ++resumes;
    co_return resumes;
}

}  // namespace

TEST_CASE("waker: many wakes of a queued task schedule it once") {
    runtime rt;
    manual_event first, second;
    int resumes = 0;
    rt.block_on([&]() -> task<void> {
        auto handle = spawn(wait_twice(first, second, resumes));
        while (!first.armed())
            co_await yield_now();
        waker w = first.peek_waker();
        w.wake_by_ref();
        w.wake_by_ref();
        w.wake_by_ref();
        for (int i = 0; i < 10; ++i)
            co_await yield_now();
        // Queued once, polled once: it passed the first wait and sits in the second.
        CHECK(resumes == 1);
        second.fire();
        auto result = co_await std::move(handle);
        CHECK(result.value() == 2);
    }());
}

TEST_CASE("waker: waking a finished task is a no-op and keeps its frame alive") {
    runtime rt;
    manual_event event;
    int resumes = 0;
    manual_event never;
    waker kept;
    rt.block_on([&]() -> task<void> {
        auto handle = spawn([](manual_event& e, int& r) -> task<int> {
            co_await e.wait();
            co_return ++r;
        }(event, resumes));
        while (!event.armed())
            co_await yield_now();
        kept = event.peek_waker();  // a clone outliving the task
        event.fire();
        auto result = co_await std::move(handle);
        CHECK(result.value() == 1);
    }());
    kept.wake_by_ref();  // the task finished: nothing happens
    kept.wake();
    CHECK(!kept);
    CHECK(resumes == 1);
}

TEST_CASE("waker: a wake from another thread reaches the worker waiting in the reactor") {
    // faulty_epoll is epoll that counts its blocking waits (no fault armed).
    runtime rt(rtkit::test::config_with_faulty("reactor"));
    rtkit::test::plugin_control& reactor = rtkit::test::control_of("reactor");
    manual_event event;
    std::atomic<bool> worker_waited{false};
    int value = rt.block_on([&]() -> task<int> {
        auto handle = spawn([](manual_event& e) -> task<int> {
            co_await e.wait();
            co_return 42;
        }(event));
        while (!event.armed())
            co_await yield_now();
        const int waits_before = reactor.blocking_waits();
        std::thread other([&] {
            // Fire once the worker, with nothing else to do, waits in the reactor.
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (reactor.blocking_waits() == waits_before &&
                   std::chrono::steady_clock::now() < give_up)
                std::this_thread::yield();
            worker_waited = reactor.blocking_waits() != waits_before;
            event.fire();
        });
        auto result = co_await std::move(handle);
        other.join();
        co_return result.value();
    }());
    CHECK(worker_waited);
    CHECK(value == 42);
}

TEST_CASE("waker: a wake from another thread reaches a worker parked between block_on calls") {
    const int before = rtkit::test::baseline_thread_count();
    runtime rt;
    manual_event event;
    std::atomic<bool> done{false};
    // The root only spawns; the task then runs on the background thread.
    rt.block_on([&]() -> task<void> {
        auto h = spawn([](manual_event& e, std::atomic<bool>& d) -> task<void> {
            co_await e.wait();
            d = true;
        }(event, done));
        (void)h;  // dropping the handle does not stop the task
        co_return;
    }());
    for (int i = 0; i < 500 && !event.armed(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(event.armed());
    // The resting worker waits on nothing the runtime watches: no thread yet.
    CHECK(rtkit::test::thread_count() == before);
    // The wake starts the background thread, which takes the worker and runs it.
    std::thread other([&] { event.fire(); });
    other.join();
    for (int i = 0; i < 2000 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(done);
}
