// The cancel lane through the runtime: a cancelled task unwinds promptly
// however many ready tasks are queued ahead of it, and ready tasks keep
// running while cancellations stream in.
#include <doctest/doctest.h>

#include <atomic>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;

namespace {

/// Polls of ready tasks so far (one worker: plain counting would do, atomic
/// keeps it honest if a test ever runs on more).
std::atomic<long> ready_polls{0};

/// A ready task: counts each of its polls, yields `rounds` times.
task<void> busy(int rounds) {
    for (int i = 0; i < rounds; ++i) {
        ++ready_polls;
        co_await yield_now();
    }
}

/// Records how many ready polls happened before it unwound.
task<void> cancelled_later(test::manual_event& never, long& polls_at_unwind) {
    struct record {
        long& at;
        ~record() { at = ready_polls.load(); }
    } guard{polls_at_unwind};
    co_await never.wait();
    co_await yield_now();  // a cancellation point
}

}  // namespace

TEST_CASE("cancel lane: with 10000 ready tasks queued a cancelled task unwinds next") {
    runtime rt;
    test::manual_event never;
    long polls_at_unwind = -1;
    long polls_at_cancel = -1;
    rt.block_on([&]() -> task<void> {
        auto target = spawn(cancelled_later(never, polls_at_unwind));
        while (!never.armed())
            co_await yield_now();
        std::vector<join_handle<void>> crowd;
        for (int i = 0; i < 10'000; ++i)
            crowd.push_back(spawn(busy(3)));
        // Every ready task is queued now, ahead of anything woken from here on.
        polls_at_cancel = ready_polls.load();
        target.cancel();
        CHECK((co_await std::move(target)).is_cancelled());
        for (auto& h : crowd)
            co_await std::move(h);
    }());
    // three_lane states: with no other cancellation, the cancelled task is the
    // next to run. The root's own poll may let one ready turn pass first.
    REQUIRE(polls_at_unwind >= 0);
    CHECK(polls_at_unwind - polls_at_cancel <= 1);
}

TEST_CASE("cancel lane: a queued ready task whose cancellation arrives is moved ahead") {
    runtime rt;
    long polls_at_end = -1;
    long polls_at_cancel = -1;
    rt.block_on([&]() -> task<void> {
        std::vector<join_handle<void>> crowd;
        for (int i = 0; i < 5'000; ++i)
            crowd.push_back(spawn(busy(2)));
        // Queued behind the crowd, never polled yet: cancelling it must move
        // it out of the ready lane, not leave it waiting its turn.
        auto target = spawn([]() -> task<void> { co_await yield_now(); }());
        polls_at_cancel = ready_polls.load();
        target.cancel();
        CHECK((co_await std::move(target)).is_cancelled());
        polls_at_end = ready_polls.load();
        for (auto& h : crowd)
            co_await std::move(h);
    }());
    // Left in the ready lane, the target would end after 5,000 polls. Moved
    // ahead, it ends next, and this root, woken then, is polled again after
    // at most one dispatch batch (61 polls).
    CHECK(polls_at_end - polls_at_cancel <= 62);
}

TEST_CASE("cancel lane: ready tasks keep running while a stream of cancellations arrives") {
    runtime_config config;
    config.lanes.options["three_lane"]["cancel_streak_limit"] = std::int64_t{4};
    runtime rt(config);
    std::atomic<long> ready_done{0};
    long cancelled_seen = 0;
    rt.block_on([&]() -> task<void> {
        std::vector<join_handle<void>> ready;
        for (int i = 0; i < 200; ++i)
            ready.push_back(spawn([](std::atomic<long>& done) -> task<void> {
                for (int k = 0; k < 20; ++k)
                    co_await yield_now();
                ++done;
            }(ready_done)));
        // A canceller that keeps spawning tasks and cancelling them at once:
        // the cancel lane never runs dry while the ready tasks work.
        auto canceller = spawn([](std::atomic<long>& done, long& seen) -> task<void> {
            while (done.load() < 200) {
                std::vector<join_handle<void>> batch;
                for (int i = 0; i < 8; ++i) {
                    batch.push_back(spawn([]() -> task<void> {
                        while (true)
                            co_await yield_now();
                    }()));
                    batch.back().cancel();
                }
                for (auto& h : batch)
                    if ((co_await std::move(h)).is_cancelled()) ++seen;
            }
        }(ready_done, cancelled_seen));
        for (auto& h : ready)
            co_await std::move(h);
        co_await std::move(canceller);
    }());
    CHECK(ready_done == 200);
    CHECK(cancelled_seen > 0);
}
