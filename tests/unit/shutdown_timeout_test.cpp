// Graceful shutdown: live tasks get up to a bound to finish, then the rest are
// cancelled and unwound, and the report says how many of each.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Sets `flag` when the task's frame is destroyed, however it ended.
struct set_on_unwind {
    std::atomic<bool>& flag;
    ~set_on_unwind() { flag = true; }
};

}  // namespace

TEST_CASE("shutdown_timeout: tasks that finish within the bound finish - none is cancelled") {
    sync::semaphore go{0};  // outlives the runtime
    runtime rt;
    std::atomic<int> done{0};
    rt.block_on([&]() -> task<void> {
        // Local tasks of this thread, released just before the shutdown:
        // nothing but this thread's drain can finish them, so the report
        // counts each of them.
        for (int i = 0; i < 20; ++i)
            (void)cx::current().spawn_local(
                [](sync::semaphore& go, std::atomic<int>& d) -> task<void> {
                    (co_await go.acquire(1)).forget();
                    co_await sleep(5ms);
                    ++d;
                }(go, done));
        co_return;
    }());
    go.release(20);
    const auto start = std::chrono::steady_clock::now();
    const shutdown_report report = rt.shutdown_timeout(60s);
    CHECK(report.finished == 20);
    CHECK(report.cancelled == 0);
    CHECK(done == 20);
    CHECK(std::chrono::steady_clock::now() - start < 30s);  // it did not wait out its bound
    CHECK(rt.is_quiescent());
    CHECK_THROWS_AS(rt.block_on(test::value_of(1)), std::logic_error);
    CHECK(rt.shutdown_timeout(1s).finished == 0);  // a second call has nothing left to do
}

TEST_CASE(
    "shutdown_timeout: the bound ends a busy run of self-waking tasks - which are cancelled") {
    runtime rt;
    std::atomic<bool> spinner_unwound{false};
    std::atomic<long> spins{0};
    std::atomic<bool> quick_done{false};
    test::manual_event go;
    rt.block_on([&]() -> task<void> {
        (void)spawn([](std::atomic<bool>& unwound, std::atomic<long>& n) -> task<void> {
            set_on_unwind guard{unwound};
            while (true) {
                ++n;
                co_await yield_now();  // always runnable: the drain never goes idle
            }
        }(spinner_unwound, spins));
        // Local, and released just before the shutdown: it can only finish
        // in this thread's drain, and is counted.
        (void)cx::current().spawn_local(
            [](test::manual_event& go, std::atomic<bool>& d) -> task<void> {
                co_await go.wait();
                d = true;
            }(go, quick_done));
        co_return;
    }());
    go.fire();
    const auto start = std::chrono::steady_clock::now();
    const shutdown_report report = rt.shutdown_timeout(50ms);
    CHECK(std::chrono::steady_clock::now() - start >= 50ms);
    CHECK(report.finished == 1);
    CHECK(report.cancelled == 1);
    CHECK(quick_done);
    CHECK(spinner_unwound);
    CHECK(spins > 0);
}

TEST_CASE("shutdown_timeout: while another thread holds the worker it waits out the bound") {
    runtime rt;
    test::manual_event never;
    std::atomic<bool> cancelled{false};
    std::thread holder([&] {
        try {
            rt.block_on([&]() -> task<void> {
                co_await never.wait();  // shutdown's cancellation request wakes it
                co_await sleep(std::chrono::hours(1));
            }());
        } catch (const bad_outcome_access&) {
            cancelled = true;
        }
    });
    // The holder's root waits: it keeps the worker.
    REQUIRE(never.wait_until_armed(std::chrono::seconds(10)));
    const auto start = std::chrono::steady_clock::now();
    const shutdown_report report = rt.shutdown_timeout(50ms);
    CHECK(std::chrono::steady_clock::now() - start >= 50ms);
    CHECK(report.finished == 0);
    CHECK(report.cancelled == 1);  // the holder's root
    holder.join();
    CHECK(cancelled);
}

TEST_CASE("shutdown_timeout: from inside the runtime's own task it cancels at once") {
    runtime rt;
    std::atomic<bool> sleeper_unwound{false};
    shutdown_report report;
    rt.block_on([&]() -> task<void> {
        (void)spawn([](std::atomic<bool>& unwound) -> task<void> {
            set_on_unwind guard{unwound};
            co_await sleep(std::chrono::hours(1));
        }(sleeper_unwound));
        co_await yield_now();
        report = rt.shutdown_timeout(std::chrono::hours(1));
    }());
    CHECK(report.finished == 0);
    CHECK(report.cancelled == 2);  // the sleeper and this root
    CHECK(sleeper_unwound);        // retired when the root's call handed the worker back
}

TEST_CASE("shutdown_timeout: from a multi_thread block_on root it does not wait for that root") {
    // The root is polled on this thread, which waits in shutdown_timeout:
    // it cannot finish meanwhile, so it must not count as work to wait for.
    test::run_or_abort_on_deadlock("shutdown_timeout waiting for its own root", [] {
        runtime rt(test::multi_thread(2));
        shutdown_report report;
        rt.block_on([&]() -> task<void> {
            report = rt.shutdown_timeout(std::chrono::hours(1));
            co_return;
        }());
        CHECK(report.finished == 0);
        CHECK(report.cancelled == 1);  // this root
    });
}

TEST_CASE("shutdown_timeout: past its bound the rest of the shutdown is bounded too") {
    // A worker holds a sleeping local task and tasks that keep running (one
    // yields for ever, one swallows the cancellation and yields on): after
    // the bound they are cancelled, and the worker's own unwinding of its
    // local task, the join and the retirement all end.
    test::run_or_abort_on_deadlock("shutdown_timeout past its bound", [] {
        runtime rt(test::multi_thread(1));
        std::atomic<bool> local_unwound{false}, spinner_unwound{false};
        std::atomic<std::thread::id> caller{};
        shutdown_report report;
        rt.block_on([&]() -> task<void> {
            co_await spawn([](std::atomic<bool>& local, std::atomic<bool>& spinner,
                              std::atomic<std::thread::id>& caller) -> task<void> {
                (void)cx::current().spawn_local([](std::atomic<bool>& unwound) -> task<void> {
                    set_on_unwind guard{unwound};
                    co_await sleep(std::chrono::hours(1));
                }(local));
                (void)spawn([](std::atomic<bool>& unwound) -> task<void> {
                    set_on_unwind guard{unwound};
                    for (;;)
                        co_await yield_now();
                }(spinner));
                (void)spawn([](std::atomic<std::thread::id>& caller) -> task<void> {
                    for (;;) {
                        try {
                            co_await yield_now();
                        } catch (const task_cancelled&) {
                            // Swallowed, except where retirement polls it last.
                            if (std::this_thread::get_id() == caller.load()) throw;
                        }
                    }
                }(caller));
                co_return;
            }(local_unwound, spinner_unwound, caller));
            caller = std::this_thread::get_id();
            report = rt.shutdown_timeout(20ms);
        }());
        CHECK(report.cancelled == 4);  // the three tasks and this root
        CHECK(local_unwound);
        CHECK(spinner_unwound);
    });
}
