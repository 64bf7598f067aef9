#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Sleeps `delay`, then notes where it ran, whether this thread had handed
/// the worker over by then, and that it is done.
task<void> sleep_then_note(std::chrono::milliseconds delay, const std::atomic<bool>& handed_over,
                           std::atomic<bool>& ran_before_handover, std::thread::id& where,
                           std::atomic<bool>& done) {
    co_await sleep(delay);
    ran_before_handover = !handed_over;
    where = std::this_thread::get_id();
    done = true;
}

/// Sleeps `delay`, then sets `ran` and wakes a thread waiting on it.
task<void> sleep_then_set(std::chrono::milliseconds delay, std::atomic<bool>& ran) {
    co_await sleep(delay);
    ran = true;
    ran.notify_all();
}

}  // namespace

TEST_CASE("spawn_local: runs on the thread that spawned it - even across block_on calls") {
    // The local task's timer fires while the background thread drives the
    // worker, which must leave the task to its owner. Should the first
    // block_on outlast the timer (a loaded machine), the task ran here
    // before the worker changed hands, which proves nothing: the round is
    // run again with a longer sleep.
    test::run_or_abort_on_deadlock("a local task's timer fired elsewhere", [] {
        for (auto delay = 5ms;; delay *= 2) {
            REQUIRE(delay < 10s);
            runtime rt;
            const auto me = std::this_thread::get_id();
            std::atomic<bool> handed_over{false}, ran_before_handover{false};
            std::atomic<bool> done{false}, marker_ran{false};
            std::thread::id ran_on;
            join_handle<void> kept;
            rt.block_on([&]() -> task<void> {
                kept = cx::current().spawn_local(
                    sleep_then_note(delay, handed_over, ran_before_handover, ran_on, done));
                // An ordinary task due later: once the background thread has
                // run it, it has fired the local task's earlier timer and
                // dispatched the wake.
                (void)spawn(sleep_then_set(2 * delay, marker_ran));
                co_return;
            }());
            handed_over = true;
            marker_ran.wait(false);
            if (ran_before_handover) continue;
            // The background thread has the worker now, but must not poll the task.
            CHECK_FALSE(done);
            // Driving the worker from this thread again lets it finish here.
            rt.block_on([&]() -> task<void> {
                co_await std::move(kept);
                CHECK(done);
            }());
            CHECK(ran_on == me);
            break;
        }
    });
}

TEST_CASE(
    "spawn_local: a local task woken from another thread while the worker is elsewhere waits for "
    "its owner") {
    runtime rt;
    test::manual_event event;
    test::manual_event marker;
    std::atomic<int> resumed{0};
    std::atomic<bool> marker_ran{false};
    join_handle<void> kept;
    rt.block_on([&]() -> task<void> {
        kept =
            cx::current().spawn_local([](test::manual_event& e, std::atomic<int>& r) -> task<void> {
                co_await e.wait();
                ++r;
            }(event, resumed));
        (void)spawn([](test::manual_event& e, std::atomic<bool>& ran) -> task<void> {
            co_await e.wait();
            ran = true;
            ran.notify_all();
        }(marker, marker_ran));
        while (!event.armed() || !marker.armed())
            co_await yield_now();
    }());
    // Woken in this order from another thread, the two reach the worker in
    // this order: once the ordinary task ran, the local one was dispatched.
    std::thread other([&] {
        event.fire();
        marker.fire();
    });
    other.join();
    marker_ran.wait(false);
    CHECK(resumed == 0);  // recorded, not run by the background thread
    rt.block_on([&]() -> task<void> { co_await std::move(kept); }());
    CHECK(resumed == 1);
}

TEST_CASE(
    "spawn_local: a local task woken from a foreign thread runs on its owner - which drives the "
    "worker") {
    runtime rt;
    test::manual_event event;
    const std::thread::id resumed = rt.block_on([&]() -> task<std::thread::id> {
        auto local = cx::current().spawn_local([](test::manual_event& e) -> task<std::thread::id> {
            co_await e.wait();
            co_return std::this_thread::get_id();
        }(event));
        co_await test::yield_until([&] { return event.armed(); });
        std::thread([&] { event.fire(); }).join();
        co_return (co_await std::move(local)).value();
    }());
    CHECK(resumed == std::this_thread::get_id());
}

TEST_CASE("spawn_local: the background thread refuses a handover while it holds live local tasks") {
    runtime rt;
    test::manual_event go, release_local;
    std::atomic<bool> local_started{false};
    rt.block_on([&]() -> task<void> {
        // This task resumes on the background thread (woken once the root
        // has returned), and spawns a local task there.
        (void)spawn([](test::manual_event& go, test::manual_event& e,
                       std::atomic<bool>& started) -> task<void> {
            co_await go.wait();
            auto local = cx::current().spawn_local(
                [](test::manual_event& ev) -> task<void> { co_await ev.wait(); }(e));
            started = true;
            started.notify_all();
            co_await std::move(local);
        }(go, release_local, local_started));
        co_await test::yield_until([&] { return go.armed(); });
    }());
    go.fire();
    local_started.wait(false);
    // The worker stays with the background thread: this call polls directly,
    // and its spawned task runs over there.
    auto ran_on = rt.block_on([]() -> task<std::thread::id> {
        co_return (co_await spawn(
                       []() -> task<std::thread::id> { co_return std::this_thread::get_id(); }()))
            .value();
    }());
    CHECK(ran_on != std::this_thread::get_id());
    release_local.fire();
}

TEST_CASE("spawn_local: refused where this thread does not hold the worker") {
    runtime rt;
    rt.block_on([&]() -> task<void> {
        std::thread other([&] {
            // A root polled directly on another thread holds no worker.
            CHECK_THROWS_AS(rt.block_on([]() -> task<void> {
                (void)cx::current().spawn_local([]() -> task<void> { co_return; }());
                co_return;
            }()),
                            no_runtime_error);
        });
        other.join();
        co_return;
    }());
}

namespace {
/// Spawns, on `rt`, a local task of this thread that sleeps until it is
/// unwound, then records on which thread its destructors ran.
void spawn_sleeping_local(runtime& rt, std::atomic<std::thread::id>& unwound_on) {
    rt.block_on([&]() -> task<void> {
        (void)cx::current().spawn_local([](std::atomic<std::thread::id>& where) -> task<void> {
            struct mark {
                std::atomic<std::thread::id>& where;
                ~mark() { where = std::this_thread::get_id(); }
            } guard{where};
            co_await sleep(std::chrono::hours(1));
        }(unwound_on));
        co_await yield_now();
    }());
}
}  // namespace

TEST_CASE("shutdown: retires the calling thread's local tasks of this runtime and only those") {
    std::atomic<std::thread::id> a_unwound_on{}, b_unwound_on{};
    runtime a, b;
    spawn_sleeping_local(a, a_unwound_on);
    spawn_sleeping_local(b, b_unwound_on);
    a.shutdown();
    CHECK(a_unwound_on.load() == std::this_thread::get_id());  // unwound here, by the owner
    CHECK(b_unwound_on.load() == std::thread::id{});           // the other runtime's stay
    CHECK_FALSE(b.is_quiescent());
    b.shutdown();
    CHECK(b_unwound_on.load() == std::this_thread::get_id());
}
