#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "../support/recorded_diagnostics.hpp"
#include "rtkit/detail/region_node.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("region: closes only after every task spawned in it has finished") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        test::locked_log<int> finished;
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx scope) -> task<void> {
                for (int i = 1; i <= 3; ++i) {
                    // Handles are dropped at once: the region, not the handle, waits.
                    (void)scope.spawn([](test::locked_log<int>& out, int n) -> task<void> {
                        co_await sleep(std::chrono::milliseconds(5 * n));
                        out.add(n);
                    }(finished, i));
                }
                co_return;
            });
            CHECK(finished.entries() == std::vector<int>{1, 2, 3});
        }());
    });
}

TEST_CASE("region: spawns through cx::current() inside the body land in the region") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> done{0};
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx) -> task<void> {
                (void)spawn([](std::atomic<int>& d) -> task<void> {
                    co_await sleep(5ms);
                    ++d;
                }(done));
                co_return;
            });
            CHECK(done == 1);
        }());
    });
}

TEST_CASE("region: nested regions form a tree - the outer waits for the inner") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        test::locked_log<std::string> log;
        test::manual_event inner_closed;
        rt.block_on([&]() -> task<void> {
            int v = co_await cx::current().region([&](cx outer) -> task<int> {
                (void)outer.spawn(
                    [](test::locked_log<std::string>& l, test::manual_event& after) -> task<void> {
                        co_await after.wait();
                        l.add("outer task");
                    }(log, inner_closed));
                co_await outer.region([&](cx inner) -> task<void> {
                    (void)inner.spawn([](test::locked_log<std::string>& l) -> task<void> {
                        co_await sleep(2ms);
                        l.add("inner task");
                    }(log));
                    co_return;
                });
                log.add("inner region closed");
                inner_closed.fire();
                co_return 7;
            });
            log.add("outer region closed");
            CHECK(v == 7);
        }());
        CHECK(log.entries() == std::vector<std::string>{"inner task", "inner region closed",
                                                        "outer task", "outer region closed"});
    });
}

TEST_CASE("region: a failing body cancels the region's tasks - drains them - then rethrows") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> started{0};
        std::atomic<int> unwound{0};
        struct counts_unwind {
            std::atomic<int>& n;
            ~counts_unwind() { ++n; }
        };
        rt.block_on([&]() -> task<void> {
            CHECK_THROWS_WITH_AS(co_await cx::current().region([&](cx scope) -> task<void> {
                for (int i = 0; i < 5; ++i)
                    (void)scope.spawn([](std::atomic<int>& s, std::atomic<int>& n) -> task<void> {
                        counts_unwind guard{n};
                        ++s;
                        co_await sleep(std::chrono::hours(1));
                    }(started, unwound));
                while (started.load() < 5)
                    co_await yield_now();  // all five wait on their timers now
                throw std::runtime_error("body failed");
            }),
                                 "body failed", std::runtime_error);
            // By the time the region rethrew, all five had unwound.
            CHECK(unwound == 5);
        }());
    });
}

namespace {

task<int> fails_after_yield() {
    co_await yield_now();
    throw std::runtime_error("body failed");
}

task<int> sleeps_an_hour_then_answers() {
    co_await sleep(1h);
    co_return 1;
}

/// Spawns a region whose body fails (or, with `cancel_it`, sleeps, and
/// cancels it): 1 if it ended by the body's failure, 0 if cancelled.
task<int> region_in_a_task_of_its_own(bool cancel_it) {
    auto h = spawn(cx::current().region([cancel_it](cx) -> task<int> {
        return cancel_it ? sleeps_an_hour_then_answers() : fails_after_yield();
    }));
    if (cancel_it) h.cancel(cancel_reason{"not needed"});
    outcome<int> o = co_await std::move(h);
    if (cancel_it) {
        REQUIRE(o.is_cancelled());
        CHECK(o.reason().message == "not needed");
        co_return 0;
    }
    REQUIRE(o.is_panicked());
    CHECK_THROWS_WITH_AS(std::rethrow_exception(o.exception()), "body failed", std::runtime_error);
    co_return 1;
}

}  // namespace

// A region awaited inline hands its failure to its awaiter without a throw of
// its own; spawned, it is a task of its own and ends the usual way.
TEST_CASE("region: spawned as a task of its own - it ends by its body's failure or cancelled") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        CHECK(rt.block_on(region_in_a_task_of_its_own(false)) == 1);
        CHECK(rt.block_on(region_in_a_task_of_its_own(true)) == 0);
    });
}

namespace {

task<void> throws_after_yield(std::string message) {
    co_await yield_now();
    throw std::runtime_error(message);
}

/// Sleeps an hour; notes whether it was cancelled.
task<void> sleeps_an_hour(std::atomic<bool>& cancelled) {
    try {
        co_await sleep(1h);
    } catch (const task_cancelled&) {
        cancelled = true;
        throw;
    }
}

}  // namespace

TEST_CASE(
    "region: a task that fails unjoined cancels the others once the body ends - then throws") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<bool> sibling_cancelled{false};
        bool body_ended = false;
        rt.block_on([&]() -> task<void> {
            CHECK_THROWS_WITH_AS(co_await cx::current().region([&](cx scope) -> task<void> {
                (void)scope.spawn(sleeps_an_hour(sibling_cancelled));
                auto failed = scope.spawn(throws_after_yield("child failed"));
                co_await test::yield_until([&] { return failed.is_finished(); });
                // The body goes on: the rule applies once it has ended.
                body_ended = true;
            }),
                                 "child failed", std::runtime_error);
        }());
        CHECK(body_ended);
        CHECK(sibling_cancelled);
    });
}

TEST_CASE("region: a task that fails while the region drains cancels the others at once") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<bool> sibling_cancelled{false};
        rt.block_on([&]() -> task<void> {
            test::manual_event go;
            CHECK_THROWS_WITH_AS(co_await cx::current().region([&](cx scope) -> task<void> {
                (void)scope.spawn(sleeps_an_hour(sibling_cancelled));
                (void)scope.spawn([](test::manual_event& e) -> task<void> {
                    co_await e.wait();
                    throw std::runtime_error("failed late");
                }(go));
                // Fired by a task outside the region once the body has ended.
                (void)spawn([](test::manual_event& e) -> task<void> {
                    co_await yield_now();
                    e.fire();
                }(go));
                co_return;
            }),
                                 "failed late", std::runtime_error);
        }());
        CHECK(sibling_cancelled);
    });
}

TEST_CASE("region: a failure the body joins is the body's - the region ends normally") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<bool> sibling_cancelled{false};
        rt.block_on([&]() -> task<void> {
            const int value = co_await cx::current().region([&](cx scope) -> task<int> {
                auto failed = scope.spawn(throws_after_yield("handled"));
                const outcome<void> o = co_await std::move(failed);
                co_return o.is_panicked() ? 7 : 0;
            });
            CHECK(value == 7);
        }());
        CHECK_FALSE(sibling_cancelled);
    });
}

TEST_CASE("region: a failed task whose handle leaves the region is the holder's to join") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            join_handle<void> out =
                co_await cx::current().region([&](cx scope) -> task<join_handle<void>> {
                    co_return scope.spawn(throws_after_yield("joined outside"));
                });
            const outcome<void> o = co_await std::move(out);
            CHECK_THROWS_WITH_AS(o.value(), "joined outside", std::runtime_error);
        }());
    });
}

TEST_CASE(
    "region: a failing body comes first - a child's failure then goes to the diagnostics hook") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::recorded_diagnostics diagnostics;
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            CHECK_THROWS_WITH_AS(co_await cx::current().region([&](cx scope) -> task<void> {
                auto failed = scope.spawn(throws_after_yield("child"));
                co_await test::yield_until([&] { return failed.is_finished(); });
                throw std::runtime_error("body");
            }),
                                 "body", std::runtime_error);
        }());
        rt.shutdown();
        const auto seen = diagnostics.seen();
        REQUIRE(seen.size() == 1);
        CHECK(seen[0].message.find("child") != std::string::npos);
    });
}

TEST_CASE("region: cancel_region cancels its tasks with the reason - not the caller's siblings") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto sibling = spawn([]() -> task<int> {
                co_await sleep(20ms);
                co_return 1;
            }());
            std::vector<outcome<void>> seen;
            co_await cx::current().region([&](cx scope) -> task<void> {
                auto a =
                    scope.spawn([]() -> task<void> { co_await sleep(std::chrono::hours(1)); }());
                auto b =
                    scope.spawn([]() -> task<void> { co_await sleep(std::chrono::hours(1)); }());
                co_await yield_now();
                scope.cancel_region(cancel_reason{"operator said stop"});
                seen.push_back(co_await std::move(a));
                seen.push_back(co_await std::move(b));
            });
            for (auto& o : seen) {
                REQUIRE(o.is_cancelled());
                CHECK(o.reason().message == "operator said stop");
            }
            CHECK((co_await std::move(sibling)).value() == 1);
        }());
    });
}

TEST_CASE("region: tasks cancelled with their region before their first poll never run") {
    // They wait in the lanes, unpolled, when the region is cancelled: each
    // sees the cancellation at its first poll, on both flavors.
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> bodies_run{0};
        rt.block_on([&]() -> task<void> {
            std::vector<outcome<int>> seen;
            co_await cx::current().region([&](cx scope) -> task<void> {
                std::vector<join_handle<int>> handles;
                for (int i = 0; i < 200; ++i)
                    handles.push_back(scope.spawn([](std::atomic<int>& runs) -> task<int> {
                        ++runs;
                        co_return 1;
                    }(bodies_run)));
                scope.cancel_region(cancel_reason{"never mind"});
                for (auto& h : handles)
                    seen.push_back(co_await std::move(h));
            });
            int cancelled = 0;
            for (auto& o : seen)
                if (o.is_cancelled() && o.reason().message == "never mind") ++cancelled;
            // On multi_thread a worker may have started some before the cancel.
            CHECK(cancelled + bodies_run.load() == 200);
            if (config.flavor == "current_thread") CHECK(bodies_run.load() == 0);
        }());
    });
}

TEST_CASE("region: a task that cancels its own region in its first poll sees it at once") {
    test::on_both_flavors([&](const runtime_config& config) {
        // It never waits before its checkpoint: the region's cancellation must
        // reach a task that is in its first poll.
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx scope) -> task<void> {
                auto self_cancelling = scope.spawn([](cx own) -> task<int> {
                    own.cancel_region(cancel_reason{"from inside"});
                    for (int i = 0; i < 1000; ++i)
                        own.checkpoint();
                    co_return 1;
                });
                outcome<int> o = co_await std::move(self_cancelling);
                REQUIRE(o.is_cancelled());
                CHECK(o.reason().message == "from inside");
            });
        }());
    });
}

TEST_CASE("region: a stolen task that cancels its own region sees it at once") {
    // The task runs on the worker that stole it while the worker whose store
    // holds it is kept busy: that worker cannot look at its store, and the
    // task must still see the cancellation in the poll that asked for it.
    test::run_or_abort_on_deadlock("a stolen task cancelling its own region", [] {
        runtime rt(test::multi_thread(2));
        for (int round = 0; round < 10; ++round) {
            rt.block_on([]() -> task<void> {
                co_await spawn([]() -> task<void> {
                    co_await cx::current().region([](cx scope) -> task<void> {
                        std::atomic<bool> finished{false};
                        auto self_cancelling = scope.spawn([&finished](cx own) -> task<int> {
                            struct mark_finished {
                                std::atomic<bool>& flag;
                                ~mark_finished() { flag.store(true); }
                            } at_exit{finished};
                            own.cancel_region(cancel_reason{"from a thief"});
                            own.checkpoint();
                            co_return 1;
                        });
                        const auto limit = std::chrono::steady_clock::now() + 10s;
                        while (!finished.load() && std::chrono::steady_clock::now() < limit)
                            std::this_thread::yield();
                        REQUIRE(finished.load());
                        outcome<int> o = co_await std::move(self_cancelling);
                        REQUIRE(o.is_cancelled());
                        CHECK(o.reason().message == "from a thief");
                    });
                }());
            }());
        }
    });
}

TEST_CASE("region: a task spawned into a cancelled region starts cancelled") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx scope) -> task<void> {
                scope.cancel_region(cancel_reason{"closed for business"});
                auto late = scope.spawn([]() -> task<int> {
                    co_await yield_now();
                    co_return 5;
                }());
                auto o = co_await std::move(late);
                CHECK(o.is_cancelled());
                CHECK(o.reason().message == "closed for business");
            });
        }());
    });
}

TEST_CASE("spawn with a callable: the task receives its own cx") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            task_id root_id = cx::current().id();
            int captured = 41;
            auto h = spawn([captured](cx c) -> task<int> {
                co_await c.sleep(1ms);
                co_return captured + (c.id() == cx::current().id() ? 1 : 0);
            });
            CHECK((co_await std::move(h)).value() == 42);
            CHECK(root_id == cx::current().id());
        }());
    });
}

TEST_CASE("region: cx reports the region it spawns into - ids are never reused") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            const cx outer = cx::current();
            const region_id root = outer.region_id();
            // A spawned task belongs to the region it was spawned into.
            auto child =
                outer.spawn([](cx self) -> task<region_id> { co_return self.region_id(); });
            CHECK((co_await std::move(child)).value() == root);
            region_id first{}, second{};
            co_await outer.region([&](cx scope) -> task<void> {
                first = scope.region_id();
                // Inside the scope, the ambient context spawns into the scope too.
                CHECK(cx::current().region_id() == first);
                co_return;
            });
            co_await outer.region([&](cx scope) -> task<void> {
                second = scope.region_id();
                co_return;
            });
            CHECK(first != root);
            CHECK(second != first);  // the first scope's node is gone; its id is not reused
            CHECK(cx::current().region_id() == root);
        }());
    });
}

// The closer of a region may see it drained while its last task is still
// leaving: that leaver must be done with the region (which lives in the
// closer's frame) by then. Under ThreadSanitizer a leaver that reads the
// closer's waker after publishing `drained` is reported on every run.
TEST_CASE("region: the last task out is done with the region before its closer sees it drained") {
    static std::atomic<int> wakes{0};
    static constexpr waker_vtable counting{
        [](void*) { ++wakes; },                    // wake
        [](void*) { ++wakes; },                    // wake_by_ref
        [](void* data) -> void* { return data; },  // clone
        [](void*) {},                              // drop
    };
    wakes = 0;
    constexpr int rounds = 200;
    for (int round = 0; round < rounds; ++round) {
        auto* node = new detail::region_node;
        node->enter();
        REQUIRE_FALSE(node->close());
        REQUIRE(node->set_closer(waker(node, &counting)));
        std::thread leaver([node] { node->leave(); });
        // The closer goes as soon as it sees the region drained, as a
        // closer woken by anything else would.
        while (!node->is_drained())
            std::this_thread::yield();
        delete node;
        leaver.join();
    }
    CHECK(wakes == rounds);
}
