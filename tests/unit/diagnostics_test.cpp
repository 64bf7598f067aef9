// The diagnostics hook: every message the runtime cannot return or throw goes
// through one replaceable hook, once. Failures nobody observes are reported
// with the task's id and the exception's message; observed ones are not.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/recorded_diagnostics.hpp"
#include "../support/stderr_capture.hpp"
#include "rtkit/combinators.hpp"
#include "rtkit/diagnostics.hpp"
#include "test_support.hpp"

using namespace rtkit;
using test::yield_until;

namespace {

task<int> failing(std::string message) {
    co_await yield_now();
    throw std::runtime_error(message);
}

}  // namespace

TEST_CASE("diagnostics: a failed task whose handle was dropped is reported with its id") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        task_id failed_id;
        rt.block_on([&]() -> task<void> {
            auto h = spawn(failing("disk on fire"));
            failed_id = h.id();
            { auto dropped = std::move(h); }
            co_await yield_until([&] { return diagnostics.count() > 0; });
        }());
        const auto seen = diagnostics.seen();
        REQUIRE(seen.size() == 1);
        CHECK(seen[0].kind == diagnostic_kind::unobserved_task_failure);
        CHECK(seen[0].task == failed_id);
        CHECK(seen[0].message.find("disk on fire") != std::string::npos);
        CHECK(seen[0].message.find("task " + std::to_string(failed_id.raw)) != std::string::npos);
    });
}

TEST_CASE("diagnostics: a handle kept past the failure reports it when dropped unawaited") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto h = spawn(failing("kept"));
            co_await yield_until([&] { return h.is_finished(); });
            CHECK(diagnostics.count() == 0);  // the handle may still take it
            { auto dropped = std::move(h); }
            CHECK(diagnostics.count() == 1);
        }());
    });
}

TEST_CASE("diagnostics: an awaited failure and a failed block_on root are not reported") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        {
            runtime rt(config);
            rt.block_on([]() -> task<void> {
                auto o = co_await spawn(failing("seen by the awaiter"));
                CHECK(o.is_panicked());
            }());
            CHECK_THROWS_WITH(rt.block_on(failing("seen by block_on's caller")),
                              "seen by block_on's caller");
            rt.shutdown();
        }
        CHECK(diagnostics.count() == 0);
    });
}

TEST_CASE("diagnostics: a region child that fails unawaited fails the region - not reported") {
    // The region takes the failure (cx::region): nobody else sees it twice.
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            CHECK_THROWS_WITH_AS(co_await cx::current().region([](cx scope) -> task<void> {
                (void)scope.spawn(failing("child"));
                co_return;
            }),
                                 "child", std::runtime_error);
        }());
        rt.shutdown();
        CHECK(diagnostics.count() == 0);
    });
}

TEST_CASE("diagnostics: a cancelled task is not a failure") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            test::manual_event never;
            auto h = spawn([](test::manual_event& e) -> task<void> { co_await e.wait(); }(never));
            h.cancel();
            { auto dropped = std::move(h); }
            co_return;
        }());
        rt.shutdown();
        CHECK(diagnostics.count() == 0);
    });
}

TEST_CASE("diagnostics: a skipped plugin is said once through the hook - none when all fail") {
    test::recorded_diagnostics diagnostics;
    runtime_config fallback;
    fallback.reactor.preference = {"no_such_reactor", "epoll"};
    {
        runtime rt(fallback);
        CHECK(rt.block_on(test::value_of(5)) == 5);
    }
    auto seen = diagnostics.seen();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].kind == diagnostic_kind::plugin_skipped);
    CHECK(seen[0].message.find("reactor plugin 'no_such_reactor' skipped") != std::string::npos);
    CHECK(seen[0].message.find("using 'epoll'") != std::string::npos);

    runtime_config none_starts;
    none_starts.reactor.preference = {"no_such_reactor", "nor_this_one"};
    CHECK_THROWS_WITH(runtime{none_starts},
                      doctest::Contains("no reactor plugin could be started"));
    CHECK(diagnostics.seen().size() == 1);  // the error says it: nothing printed besides
}

TEST_CASE("diagnostics: a hook that throws does not take the runtime down") {
    test::on_both_flavors([&](const runtime_config& config) {
        auto previous =
            set_diagnostic_hook([](const diagnostic&) { throw std::runtime_error("x"); });
        runtime rt(config);
        rt.block_on([]() -> task<void> {
            (void)spawn(failing("nobody listens"));
            co_return;
        }());
        rt.shutdown();
        CHECK(rt.is_quiescent());
        set_diagnostic_hook(std::move(previous));
    });
}

TEST_CASE("diagnostics: the default hook writes one line on stderr") {
    auto previous = set_diagnostic_hook({});
    test::stderr_capture err;
    report_diagnostic({diagnostic_kind::tasks_leaked, "three tasks leaked"});
    CHECK(err.text() == "rtkit: three tasks leaked\n");
    set_diagnostic_hook(std::move(previous));
}

namespace {

/// Waits until cancelled, then fails: a task that fails as its caller gives up.
template <class T>
task<T> fails_when_cancelled(std::atomic<int>& started, std::atomic<int>& failed) {
    ++started;
    try {
        co_await sleep(std::chrono::hours(1));
    } catch (const task_cancelled&) {
        ++failed;
        throw std::runtime_error("failed while being cancelled");
    }
    co_return T{};
}

}  // namespace

TEST_CASE("diagnostics: join_all and race cancelled by their caller drop their tasks' failures") {
    test::on_both_flavors([&](const runtime_config& config) {
        // The combinators own their tasks' outcomes: when the caller is
        // cancelled, what the tasks end with (here a failure thrown as they
        // unwind) goes with the combinator's own cancelled outcome.
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        std::atomic<int> started{0}, failed{0};
        rt.block_on([&]() -> task<void> {
            auto racer = spawn([](std::atomic<int>& s, std::atomic<int>& f) -> task<int> {
                std::vector<task<int>> ts;
                ts.push_back(fails_when_cancelled<int>(s, f));
                ts.push_back(fails_when_cancelled<int>(s, f));
                co_return (co_await race(std::move(ts))).value();
            }(started, failed));
            auto joiner = spawn([](std::atomic<int>& s, std::atomic<int>& f) -> task<void> {
                std::vector<task<int>> ts;
                ts.push_back(fails_when_cancelled<int>(s, f));
                ts.push_back(fails_when_cancelled<int>(s, f));
                (void)co_await join_all(std::move(ts));
            }(started, failed));
            co_await yield_until([&] { return started == 4; });
            racer.cancel();
            joiner.cancel();
            CHECK((co_await std::move(racer)).is_cancelled());
            CHECK((co_await std::move(joiner)).is_cancelled());
        }());
        rt.shutdown();
        CHECK(failed == 4);
        CHECK(diagnostics.count() == 0);
    });
}
