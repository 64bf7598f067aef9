// A plugin that throws while block_on drives its root (a reactor's poll, a
// timer's insert) must leave the runtime as it was: the root gone from the
// store, the worker handed back, later calls and shutdown working.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "fault_plugins.hpp"
#include "rtkit/sync/notify.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// What a healthy runtime does after the failure: a root that spawns, sleeps
/// and joins, with the spawned task run on this thread (the worker is back).
void check_runtime_still_works(runtime& rt) {
    const auto ran_on = rt.block_on([]() -> task<std::thread::id> {
        auto h = spawn(test::thread_of_task());
        co_await sleep(1ms);
        co_return (co_await std::move(h)).value();
    }());
    CHECK(ran_on == std::this_thread::get_id());
    CHECK(rt.is_quiescent());
}

/// Spawns `t` from a root that yields until a poll of the task makes the
/// faulty timer driver throw under that block_on; returns the task's handle.
template <class T>
join_handle<T> spawn_until_its_poll_fails(runtime& rt, task<T> t) {
    join_handle<T> spawned;
    CHECK_THROWS_WITH(rt.block_on([](join_handle<T>& out, task<T> t) -> task<void> {
        out = spawn(std::move(t));
        for (;;)
            co_await yield_now();
    }(spawned, std::move(t))),
                      doctest::Contains("injected insert failure"));
    return spawned;
}

}  // namespace

TEST_CASE("driver failure: a reactor poll that throws under block_on leaves no root behind") {
    test::run_or_abort_on_deadlock("block_on after a failed reactor poll", [] {
        runtime rt(test::config_with_faulty("reactor"));
        test::plugin_control& fault = test::control_of("reactor");
        fault.arm_fault(0);  // the worker parks in the reactor while the root sleeps
        CHECK_THROWS_WITH(rt.block_on([]() -> task<int> {
            co_await sleep(5ms);
            co_return 1;
        }()),
                          doctest::Contains("injected poll failure"));
        CHECK(fault.failures() == 1);
        CHECK(rt.is_quiescent());  // the root's frame is gone: so is its store entry
        check_runtime_still_works(rt);
        rt.shutdown();
    });
}

TEST_CASE("driver failure: a root destroyed while it sleeps destroys no outcome it never made") {
    // The root's frame goes while it is suspended: its word for the outcome's
    // tag still names the sleep it awaits, and must read as "no outcome".
    test::run_or_abort_on_deadlock("a root with a string outcome after a failed poll", [] {
        runtime rt(test::config_with_faulty("reactor"));
        test::plugin_control& fault = test::control_of("reactor");
        fault.arm_fault(0);
        CHECK_THROWS_WITH(rt.block_on([]() -> task<std::string> {
            co_await sleep(5ms);
            co_return std::string(100, 'x');
        }()),
                          doctest::Contains("injected poll failure"));
        CHECK(rt.is_quiescent());
        check_runtime_still_works(rt);
        rt.shutdown();
    });
}

TEST_CASE(
    "driver failure: a timer insert that throws after the root's poll hands the worker back") {
    test::run_or_abort_on_deadlock("block_on after a failed timeout arm", [] {
        runtime rt(test::config_with_faulty("timer"));
        test::manual_event never;
        test::plugin_control& fault = test::control_of("timer");
        fault.arm_fault(0);  // the root's timeout is armed after its first poll
        CHECK_THROWS_WITH(rt.block_on([&]() -> task<void> {
            co_await timeout(1s,
                             [](test::manual_event& e) -> task<void> { co_await e.wait(); }(never));
        }()),
                          doctest::Contains("injected insert failure"));
        CHECK(fault.failures() == 1);
        CHECK(rt.is_quiescent());
        check_runtime_still_works(rt);
        rt.shutdown();
    });
}

TEST_CASE(
    "driver failure: a timer insert that throws after a spawned task's poll leaves the task "
    "reachable") {
    // The task suspends inside a timeout; arming the timeout's timer throws
    // under block_on. The task must stay an ordinary suspended task: a later
    // cancellation reaches it and its join returns.
    test::run_or_abort_on_deadlock("a task whose timeout could not be armed", [] {
        runtime rt(test::config_with_faulty("timer"));
        test::plugin_control& fault = test::control_of("timer");
        sync::notify never;
        fault.arm_fault(0);
        join_handle<void> stuck = spawn_until_its_poll_fails(rt, [](sync::notify& n) -> task<void> {
            co_await timeout(1s, [](sync::notify& n) -> task<void> { co_await n.notified(); }(n));
        }(never));
        CHECK(fault.failures() == 1);
        const outcome<void> result = rt.block_on([](join_handle<void> h) -> task<outcome<void>> {
            h.cancel(cancel_reason{"after the failure"});
            co_return co_await std::move(h);
        }(std::move(stuck)));
        CHECK(result.is_cancelled());
        CHECK(rt.is_quiescent());
        rt.shutdown();
    });
}

TEST_CASE(
    "driver failure: nested timeouts armed in part when the driver refuses one are armed "
    "again in full") {
    // Arming goes from the innermost scope out: the inner (an hour) gets its
    // timer, the outer (10 ms) does not. Once the task suspends again, both
    // must be armed, so the outer one still bounds the wait.
    test::run_or_abort_on_deadlock("an outer timeout lost to a refused timer", [] {
        runtime rt(test::config_with_faulty("timer"));
        test::plugin_control& fault = test::control_of("timer");
        sync::notify nudge;
        fault.arm_fault(1);
        join_handle<bool> waiting =
            spawn_until_its_poll_fails(rt, [](sync::notify& n) -> task<bool> {
                co_return co_await timeout(10ms, [](sync::notify& n) -> task<void> {
                    (void)co_await timeout(1h, [](sync::notify& n) -> task<void> {
                        co_await n.notified();  // woken once, after the failure
                        co_await n.notified();  // then only the outer timeout ends it
                    }(n));
                }(n));
            }(nudge));
        CHECK(fault.failures() == 1);
        const bool completed = rt.block_on([](join_handle<bool> h, sync::notify& n) -> task<bool> {
            n.notify_one();
            outcome<bool> result = co_await std::move(h);
            co_return result.value();
        }(std::move(waiting), nudge));
        CHECK_FALSE(completed);  // the outer timeout ran out
        rt.shutdown();
    });
}
