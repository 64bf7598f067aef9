// rtkit::task_set: outcomes in the order tasks finish, cancellation of all
// of them when the set goes, and join_handle::detach.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "../support/recorded_diagnostics.hpp"
#include "rtkit/task_set.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

task<int> value_when(test::manual_event& event, int value) {
    co_await event.wait();
    co_return value;
}
task<int> never(test::arrivals& started, std::atomic<int>& unwound) {
    test::unwind_mark mark{unwound};
    started.arrive();
    co_await sleep(std::chrono::hours(1));
    co_return 0;
}
task<int> fails() {
    co_await yield_now();
    throw std::runtime_error("member failed");
}

/// Yields until `done()` holds (each yield of a block_on root gives the
/// worker a dispatch turn); fails the test after many.
template <class F>
task<void> yield_until(F done) {
    for (int i = 0; i < 100000 && !done(); ++i)
        co_await yield_now();
    CHECK(done());
}

}  // namespace

TEST_CASE("task_set: join_next gives outcomes in the order the tasks finish") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        std::array<test::manual_event, 3> events;
        task_set<int> set;
        CHECK(set.empty());
        for (int i = 0; i < 3; ++i)
            set.spawn(value_when(events[static_cast<std::size_t>(i)], i));
        CHECK(set.size() == 3);
        for (int i : {2, 0, 1}) {
            events[static_cast<std::size_t>(i)].fire();
            std::optional<outcome<int>> o = co_await set.join_next();
            REQUIRE(o);
            CHECK(o->value() == i);
        }
        CHECK(set.empty());
        CHECK_FALSE(co_await set.join_next());
    }());
}

TEST_CASE("task_set: a task that throws gives its failure - of void too") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        task_set<int> set;
        set.spawn(fails());
        std::optional<outcome<int>> o = co_await set.join_next();
        REQUIRE(o);
        CHECK(o->is_panicked());
        CHECK_THROWS_WITH_AS(o->value(), "member failed", std::runtime_error);

        task_set<void> voids;
        voids.spawn([]() -> task<void> { co_return; }());
        std::optional<outcome<void>> v = co_await voids.join_next();
        REQUIRE(v);
        CHECK(v->is_ok());
    }());
}

TEST_CASE("task_set: dropping the set cancels its running tasks - their region waits for them") {
    for (const runtime_config& config : test::both_flavors()) {
        INFO("flavor: " << config.flavor);
        runtime rt(config);
        test::arrivals started;
        std::atomic<int> unwound{0};
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx) -> task<void> {
                task_set<int> set;
                for (int i = 0; i < 20; ++i)
                    set.spawn(never(started, unwound));
                co_await started.wait_for(20);
            });
            CHECK(unwound == 20);  // the region closed after every one ended
        }());
    }
}

TEST_CASE("task_set: cancel_all - every task ends cancelled - also those not begun yet") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::arrivals started;
        std::atomic<int> unwound{0};
        task_set<int> set;
        set.spawn(never(started, unwound));
        co_await started.wait_for(1);
        set.spawn(never(started, unwound));  // queued: it has not run yet
        set.cancel_all(cancel_reason{"enough"});
        int cancelled = 0;
        while (std::optional<outcome<int>> o = co_await set.join_next()) {
            CHECK(o->is_cancelled());
            CHECK(o->reason().message == "enough");
            ++cancelled;
        }
        CHECK(cancelled == 2);
        CHECK(started.count() == 1);  // the second never began
        CHECK(unwound == 1);
    }());
}

TEST_CASE("task_set: a task cancelled by its region before it began still leaves the set") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::arrivals started;
        std::atomic<int> unwound{0};
        task_set<int> set;
        co_await cx::current().region([&](cx inner) -> task<void> {
            set.spawn(never(started, unwound));  // spawned into the region scope
            inner.cancel_region(cancel_reason{"region cancelled"});
            co_return;
        });
        // The region is closed, so the task has ended; the set must know.
        std::optional<outcome<int>> o = co_await set.join_next();
        REQUIRE(o);
        CHECK(o->is_cancelled());
        CHECK(started.count() == 0);
        CHECK_FALSE(co_await set.join_next());
    }());
}

TEST_CASE("task_set: a task's parameters are gone when join_next gives its outcome") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = sync::make_channel<int>(1);
        task_set<bool> set;
        set.spawn([](sync::channel_sender<int> tx) -> task<bool> {
            co_return tx.is_closed();
        }(std::move(tx)));
        std::optional<outcome<bool>> o = co_await set.join_next();
        REQUIRE(o);
        CHECK_FALSE(o->value());
        CHECK(rx.is_finished());  // the sender it was given is gone
    }());
}

TEST_CASE("task_set: a task that ended while something still holds its waker is handed back") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::manual_event never_fired;  // keeps the waker of the task waiting on it
        task_set<int> set;
        set.spawn(value_when(never_fired, 1));
        co_await yield_until([&] { return never_fired.armed(); });
        set.cancel_all();  // wakes it: the event's await does not throw, so it returns 1
        std::optional<outcome<int>> o = co_await set.join_next();
        REQUIRE(o);
        CHECK(o->value() == 1);
        CHECK(set.empty());
    }());
}

TEST_CASE("task_set: a join_next cancelled while it waits takes no outcome") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::manual_event event;
        task_set<int> set;
        set.spawn(value_when(event, 7));
        std::atomic<bool> waiting{false};
        auto joiner = spawn([](task_set<int>& set, std::atomic<bool>& waiting) -> task<void> {
            waiting = true;
            (void)co_await set.join_next();
        }(set, waiting));
        co_await yield_until([&] { return waiting.load(); });
        for (int i = 0; i < 8; ++i)
            co_await yield_now();
        joiner.cancel();
        CHECK((co_await std::move(joiner)).is_cancelled());
        event.fire();
        std::optional<outcome<int>> o = co_await set.join_next();
        REQUIRE(o);
        CHECK(o->value() == 7);
    }());
}

TEST_CASE("task_set: shutdown cancels every task and waits until all have ended") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::arrivals started;
        std::atomic<int> unwound{0};
        task_set<int> set;
        for (int i = 0; i < 5; ++i)
            set.spawn(never(started, unwound));
        co_await started.wait_for(5);
        co_await set.shutdown();
        CHECK(unwound == 5);
        CHECK(set.empty());
    }());
}

TEST_CASE("task_set: a failure nobody took is reported when the set goes - a cancel is not") {
    test::recorded_diagnostics diagnostics;
    runtime rt;
    rt.block_on([]() -> task<void> {
        test::arrivals started;
        std::atomic<int> unwound{0};
        std::atomic<bool> thrown{false};
        {
            task_set<int> set;
            set.spawn([](std::atomic<bool>& thrown) -> task<int> {
                co_await yield_now();
                thrown = true;
                throw std::runtime_error("member failed");
            }(thrown));
            set.spawn(never(started, unwound));
            // Both polls ran on this thread: the failure is in the set.
            co_await started.wait_for(1);
            co_await yield_until([&] { return thrown.load(); });
        }
        co_await yield_until([&] { return unwound.load() == 1; });
    }());
    rt.shutdown();
    std::vector<diagnostic> seen = diagnostics.seen();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].kind == diagnostic_kind::unobserved_task_failure);
    CHECK(seen[0].message.find("member failed") != std::string::npos);
    CHECK(seen[0].message.find("task set") != std::string::npos);
    CHECK(seen[0].task);
}

TEST_CASE("task_set: a thousand tasks on two workers - each outcome once") {
    runtime rt(test::multi_thread(2));
    rt.block_on([]() -> task<void> {
        constexpr int count = 1000;
        task_set<int> set;
        for (int i = 0; i < count; ++i)
            set.spawn([](int i) -> task<int> {
                if (i % 3 == 0) co_await yield_now();
                co_return i;
            }(i));
        std::vector<int> seen(count, 0);
        while (std::optional<outcome<int>> o = co_await set.join_next())
            ++seen[static_cast<std::size_t>(o->value())];
        CHECK(std::count(seen.begin(), seen.end(), 1) == count);
    }());
}

TEST_CASE("task_set: spawning outside a task is refused") {
    task_set<std::int64_t> set;
    CHECK_THROWS_AS(set.spawn(test::value_of(1)), no_runtime_error);
    CHECK(set.empty());
}

TEST_CASE(
    "detach: the task runs on - its region waits for it - outside a region its failure is "
    "reported") {
    test::recorded_diagnostics diagnostics;
    runtime rt;
    std::atomic<int> finished{0};
    rt.block_on([&]() -> task<void> {
        co_await cx::current().region([&](cx inner) -> task<void> {
            join_handle<void> ok = inner.spawn([](std::atomic<int>& n) -> task<void> {
                co_await sleep(1ms);
                ++n;
            }(finished));
            ok.detach();
            CHECK_FALSE(ok.valid());
            co_return;
        });
        CHECK(finished == 1);  // the region waited for the detached task
        auto loose = spawn(fails());
        loose.detach();
        co_await yield_until([&] { return diagnostics.count() > 0; });
    }());
    rt.shutdown();
    std::vector<diagnostic> seen = diagnostics.seen();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].kind == diagnostic_kind::unobserved_task_failure);
    CHECK(seen[0].message.find("member failed") != std::string::npos);
}

TEST_CASE("detach: in a region a detached task's failure fails the region - as any unjoined one") {
    runtime rt;
    rt.block_on([&]() -> task<void> {
        CHECK_THROWS_WITH_AS(co_await cx::current().region([&](cx inner) -> task<void> {
            inner.spawn(fails()).detach();
            co_return;
        }),
                             "member failed", std::runtime_error);
    }());
}
