// Region cancellation at scale: how many tasks the cancellations look at, so
// that a cascade of cancellations (each region scope below a cancelled one
// passes the cancellation on) stays linear in the tasks, without timing it.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>

#include "test_support.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Tasks looked at by region cancellations on the worker this thread drives.
std::uint64_t cancel_walk_visits() {
    return detail::driving()->owner().counters().cancel_walk_visits.get();
}

/// One level of a chain: a region in which the next level runs as a task,
/// joined; the last level sleeps.
task<void> chain_level(int depth, std::atomic<int>& bottom_reached) {
    if (depth == 0) {
        bottom_reached.fetch_add(1);
        co_await sleep(std::chrono::hours(1));
        co_return;
    }
    co_await cx::current().region([&](cx inner) -> task<void> {
        auto next = inner.spawn(chain_level(depth - 1, bottom_reached));
        (void)co_await std::move(next);
    });
}

}  // namespace

TEST_CASE(
    "region scale: cancelling a chain of 1 -000 nested regions looks at each task a few times") {
    constexpr int depth = 1000;
    runtime rt;
    rt.block_on([&]() -> task<void> {
        std::atomic<int> bottom_reached{0};
        auto top = spawn(chain_level(depth, bottom_reached));
        while (bottom_reached.load() == 0)
            co_await yield_now();
        const std::uint64_t before = cancel_walk_visits();
        top.cancel();
        CHECK((co_await std::move(top)).is_cancelled());
        // Each level's scope passes the cancellation on to the region below;
        // before the region tree, each of those looked at every task again.
        CHECK(cancel_walk_visits() - before <= 3 * depth);
    }());
    CHECK(rt.is_quiescent());
}

TEST_CASE(
    "region scale: cancelling 2 -000 tasks that each sit in a region of their own is linear") {
    constexpr int tasks = 2000;
    runtime rt;
    rt.block_on([&]() -> task<void> {
        std::uint64_t visits = 0;
        co_await cx::current().region([&](cx parent) -> task<void> {
            std::atomic<int> asleep{0};
            for (int i = 0; i < tasks; ++i)
                (void)parent.spawn([&asleep](cx) -> task<void> {
                    co_await cx::current().region([&asleep](cx) -> task<void> {
                        asleep.fetch_add(1);
                        co_await sleep(std::chrono::hours(1));
                    });
                });
            while (asleep.load() < tasks)
                co_await yield_now();
            const std::uint64_t before = cancel_walk_visits();
            parent.cancel_region();
            // The region closes once all of them unwound: count then.
            co_await yield_now();
            visits = before;
        });
        CHECK(cancel_walk_visits() - visits <= 3 * tasks);
    }());
    CHECK(rt.is_quiescent());
}

TEST_CASE("region scale: a region opened below a cancelled one starts cancelled") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        co_await cx::current().region([](cx outer) -> task<void> {
            outer.cancel_region();
            bool inner_cancelled = false;
            co_await outer.region([&](cx inner) -> task<void> {
                auto h = inner.spawn([]() -> task<int> {
                    co_await sleep(std::chrono::hours(1));
                    co_return 1;
                }());
                inner_cancelled = (co_await std::move(h)).is_cancelled();
            });
            CHECK(inner_cancelled);
        });
    }());
}
