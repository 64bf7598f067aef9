#include <doctest/doctest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
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
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
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
    });
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
            d.notify_all();
        }(event, done));
        (void)h;  // dropping the handle does not stop the task
        co_return;
    }());
    REQUIRE(event.wait_until_armed(std::chrono::seconds(10)));
    // The resting worker waits on nothing the runtime watches: no thread yet.
    CHECK(rtkit::test::thread_count() == before);
    // The wake starts the background thread, which takes the worker and runs it.
    std::thread other([&] { event.fire(); });
    other.join();
    done.wait(false);
}

namespace {

runtime_config flavor_config(const char* flavor) {
    runtime_config c;
    c.flavor = flavor;
    c.workers = 1;
    return c;
}

/// What `disturb` does to the waiting task from inside the same dispatch
/// batch: the task suspended a poll ago and its worker has not yet marked it
/// idle. The waiting task is spawned first, `disturb` runs in the next task,
/// both from one spawner on the worker, so they queue in that order.
template <class Disturb>
outcome<int> disturb_a_task_suspended_in_this_batch(const char* flavor, Disturb disturb) {
    runtime rt(flavor_config(flavor));
    manual_event event;
    auto result = rt.block_on([](manual_event& e, Disturb& d) -> task<outcome<int>> {
        // Parameters, not captures: a coroutine lambda's captures die with
        // the lambda, before the task runs.
        auto spawner = spawn([](manual_event& e, Disturb& d) -> task<join_handle<outcome<int>>> {
            auto waiting = spawn([](manual_event& e) -> task<int> {
                co_await e.wait();     // not a cancellation point: a cancel resumes it
                co_await yield_now();  // which unwinds here
                co_return 7;
            }(e));
            co_return spawn(
                [](Disturb& d, manual_event& e, join_handle<int> w) -> task<outcome<int>> {
                    CHECK(e.armed());  // the waiting task suspended a poll ago
                    d(e, w);
                    co_return co_await std::move(w);
                }(d, e, std::move(waiting)));
        }(e, d));
        outcome<join_handle<outcome<int>>> disturbing = co_await std::move(spawner);
        outcome<outcome<int>> waited = co_await std::move(disturbing).value();
        co_return std::move(waited).value();
    }(event, disturb));
    return result;
}

}  // namespace

TEST_CASE("waker: a wake from another thread reaches a task that suspended in the running batch") {
    for (const char* flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        test::run_or_abort_on_deadlock("a wake from another thread lost", [&] {
            auto result = disturb_a_task_suspended_in_this_batch(
                flavor, [](manual_event& e, join_handle<int>&) {
                    // Fired while this batch still runs: the task is marked
                    // running, so the wake only marks it notified.
                    std::thread other([&] { e.fire(); });
                    other.join();
                });
            CHECK(result.value() == 7);
        });
    }
}

TEST_CASE(
    "waker: a cancel from another thread reaches a task that suspended in the running batch") {
    for (const char* flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        test::run_or_abort_on_deadlock("a cancel from another thread lost", [&] {
            auto result = disturb_a_task_suspended_in_this_batch(
                flavor, [](manual_event&, join_handle<int>& waiting) {
                    std::thread other([&] { waiting.cancel(cancel_reason{"from elsewhere"}); });
                    other.join();
                });
            REQUIRE(result.is_cancelled());
            CHECK(result.reason().message == "from elsewhere");
        });
    }
}

TEST_CASE(
    "waker: a wake and a cancel on the worker's thread reach a task that suspended in the running "
    "batch") {
    for (const char* flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        test::run_or_abort_on_deadlock("a wake on the worker's thread lost", [&] {
            auto woken = disturb_a_task_suspended_in_this_batch(
                flavor, [](manual_event& e, join_handle<int>&) { e.fire(); });
            CHECK(woken.value() == 7);
            auto cancelled = disturb_a_task_suspended_in_this_batch(
                flavor, [](manual_event&, join_handle<int>& waiting) {
                    waiting.cancel(cancel_reason{"from here"});
                });
            REQUIRE(cancelled.is_cancelled());
            CHECK(cancelled.reason().message == "from here");
        });
    }
}

TEST_CASE("waker: a runtime destroyed under a storm of wakes from other threads") {
    // Threads that drive no worker keep waking the runtime's tasks while the
    // runtime ends and is destroyed: their wakers keep the tasks alive, and
    // a wake that is under way must not touch the runtime after it is gone
    // (AddressSanitizer and ThreadSanitizer see such a touch).
    test::run_or_abort_on_deadlock("a runtime destroyed under a storm of wakes", [] {
        for (int round = 0; round < 20; ++round) {
            auto rt = std::make_unique<runtime>(test::multi_thread(2));
            test::wake_targets targets;
            std::atomic<bool> done{false};
            std::vector<std::thread> storm;
            for (int t = 0; t < 3; ++t)
                storm.emplace_back([&] {
                    while (!done.load())
                        targets.any().wake();
                });
            rt->block_on([&]() -> task<void> {
                std::vector<join_handle<void>> hs;
                for (int i = 0; i < 16; ++i)
                    hs.push_back(spawn(targets.wait_until_stopped()));
                for (int i = 0; i < 100; ++i)
                    co_await yield_now();
                targets.stop();
                for (auto& h : hs) {
                    while (!h.is_finished()) {
                        targets.any().wake();
                        co_await yield_now();
                    }
                    co_await std::move(h);
                }
            }());
            rt.reset();  // the storm goes on meanwhile
            done = true;
            for (auto& t : storm)
                t.join();
        }
    });
}

#ifdef RTKIT_CHAOS
TEST_CASE("waker: a wake from another thread still under way when the runtime goes") {
    // The wake has put its task in the injector and is held before it looks
    // for a worker to unpark. A busy worker finds the task there anyway and
    // runs it; it finishes, block_on returns and the runtime is destroyed.
    // The runtime's destruction must wait for the wake to end: a wake going
    // on after it would touch freed memory (AddressSanitizer).
    using detail::chaos::site;
    manual_event event;
    std::atomic<detail::task_header*> waiting{nullptr};
    test::signal_flag published, runtime_gone;
    std::atomic<std::thread::id> waker_thread{};
    std::atomic<bool> destroyed{false}, wake_went_on_after_destruction{false};
    test::chaos_hook hold([&](site s) {
        if (s == site::injector_pushed && std::this_thread::get_id() == waker_thread.load() &&
            !published.is_set()) {
            published.set();
            runtime_gone.wait_for(std::chrono::seconds(10));
            wake_went_on_after_destruction = destroyed.load();
        } else if (s == site::runtime_destroying) {
            runtime_gone.set();  // it waits for the wake from here on: let the wake end
        }
    });
    auto rt = std::make_unique<runtime>(test::multi_thread(2));
    std::atomic<bool> idle_when_woken{false};
    std::thread outside([&] {
        waker_thread = std::this_thread::get_id();
        // Once the task is marked idle, a wake queues it in the injector.
        const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        auto idle = [&] {
            detail::task_header* t = waiting.load();
            return t && event.armed() &&
                   !(t->state.load() &
                     (detail::task_state::running | detail::task_state::scheduled));
        };
        while (!idle() && std::chrono::steady_clock::now() < limit)
            std::this_thread::yield();
        idle_when_woken = idle();
        event.fire();
    });
    rt->block_on([&]() -> task<void> {
        // Keeps a worker awake: it looks at the injector every few polls.
        (void)spawn([]() -> task<void> {
            for (;;)
                co_await yield_now();
        }());
        auto h = spawn([](manual_event& e) -> task<void> { co_await e.wait(); }(event));
        waiting = h.record();
        co_await std::move(h);
        waiting = nullptr;
    }());
    rt.reset();
    destroyed = true;
    runtime_gone.set();
    outside.join();
    REQUIRE(idle_when_woken);
    CHECK(published.is_set());
    CHECK_FALSE(wake_went_on_after_destruction);
}
#endif
