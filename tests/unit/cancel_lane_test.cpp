// The cancel lane through the runtime: a cancelled task unwinds promptly
// however many ready tasks are queued ahead of it, and ready tasks keep
// running while cancellations stream in.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
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

/// Waits for `never`; sets `unwound` when its frame goes.
task<void> wait_and_record_unwind(test::manual_event& never, std::atomic<bool>& unwound) {
    struct record {
        std::atomic<bool>& done;
        ~record() { done = true; }
    } guard{unwound};
    co_await never.wait();
    co_await yield_now();  // a cancellation point
}

/// Cancels `waiting`, then holds this worker (10 s at most) until it has
/// unwound; returns whether it did.
task<bool> cancel_and_hold_worker(join_handle<void>& waiting, std::atomic<bool>& unwound) {
    waiting.cancel();
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!unwound && std::chrono::steady_clock::now() < limit)
        std::this_thread::yield();
    co_return unwound.load();
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

namespace {

/// Logs 'R' at each poll, yielding `rounds` times: a ready task that keeps
/// its place in the ready lane.
task<void> logging_busy(std::string& log, int rounds) {
    for (int i = 0; i < rounds; ++i) {
        log += 'R';
        co_await yield_now();
    }
}

/// Counts its start, then sleeps an hour; logs 'C' when it unwinds.
task<void> logging_sleeper(std::string& log, int& started) {
    struct on_unwind {
        std::string& log;
        ~on_unwind() { log += 'C'; }
    } guard{log};
    ++started;
    co_await sleep(std::chrono::hours(1));
}

}  // namespace

TEST_CASE("cancel lane: three_lane's streak through a runtime - L unwinds then one ready poll") {
    // One worker, nothing else running: the log is the lanes' pop order. Forty
    // sleeping tasks are cancelled at once (each is woken into the cancel lane)
    // while three ready tasks keep yielding: the policy states that cancel
    // pops come in streaks of cancel_streak_limit, each followed by one ready
    // task, until the cancel lane is empty.
    constexpr int limit = 4;
    runtime_config config;
    config.lanes.options["three_lane"]["cancel_streak_limit"] = std::int64_t{limit};
    runtime rt(config);
    std::string log;
    std::size_t cancelled_at = 0;
    rt.block_on([&]() -> task<void> {
        int started = 0;
        std::vector<join_handle<void>> sleepers;
        for (int i = 0; i < 40; ++i)
            sleepers.push_back(spawn(logging_sleeper(log, started)));
        while (started < 40)
            co_await yield_now();
        std::vector<join_handle<void>> ready;
        for (int i = 0; i < 3; ++i)
            ready.push_back(spawn(logging_busy(log, 100)));
        cancelled_at = log.size();
        for (auto& h : sleepers)
            h.cancel();
        for (auto& h : sleepers)
            CHECK((co_await std::move(h)).is_cancelled());
        for (auto& h : ready)
            co_await std::move(h);
    }());
    std::string streaks;
    for (int i = 0; i < 40 / limit; ++i)
        streaks += std::string(limit, 'C') + 'R';
    CHECK(log.substr(cancelled_at, streaks.size()) == streaks);
    CHECK(log.find('C', cancelled_at + streaks.size()) == std::string::npos);
    CHECK(log.size() - cancelled_at == 40 + 300);
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

namespace {

/// Waits for `go`, then yields `yields` times, shrugging off cancellation,
/// and returns how often it was polled since `go`. A task that keeps being
/// queued after its cancellation was requested.
task<int> stubborn(test::manual_event& go, int yields) {
    co_await go.wait();
    int polls = 1;
    for (int i = 0; i < yields; ++i) {
        try {
            co_await yield_now();
        } catch (const task_cancelled&) {
        }
        ++polls;
    }
    co_return polls;
}

/// Polled `yields + 1` times, shrugging off cancellation after its first
/// poll; counts its polls in `polls` and returns how many it saw itself.
task<int> counted_yields(std::atomic<int>& polls, int yields) {
    int mine = 0;
    for (int i = 0;; ++i) {
        ++polls;
        ++mine;
        if (i == yields) break;
        try {
            co_await yield_now();
        } catch (const task_cancelled&) {
        }
    }
    co_return mine;
}

/// Spawns one counted_yields task per slot of `polls` from a worker, so they
/// queue in its lanes.
task<void> spawn_counted(std::vector<join_handle<int>>& handles,
                         std::vector<std::atomic<int>>& polls, int yields) {
    for (auto& p : polls)
        handles.push_back(spawn(counted_yields(p, yields)));
    co_return;
}

/// Sets its flag when destroyed (moved-from copies set nothing).
struct flag_on_destroy {
    explicit flag_on_destroy(bool& flag) noexcept : flag_(&flag) {}
    flag_on_destroy(flag_on_destroy&& other) noexcept
        : flag_(std::exchange(other.flag_, nullptr)) {}
    ~flag_on_destroy() {
        if (flag_) *flag_ = true;
    }
    bool* flag_;
};

/// Waits for `go`, then yields until cancelled: however late the
/// cancellation comes, the task ends cancelled.
task<void> holding(flag_on_destroy, test::manual_event& go) {
    co_await go.wait();
    while (true)
        co_await yield_now();
}

/// Counts itself in `parked`, waits for `wake`, then is busy(rounds).
task<void> woken_busy(sync::notify& wake, std::atomic<int>& parked, int rounds) {
    ++parked;
    co_await wake.notified();
    co_await busy(rounds);
}

/// Spawns `count` woken_busy tasks and wakes them all: they wait in the ready
/// lane, where a task woken after them queues behind them. (Tasks never
/// polled would wait in three_lane's deferred lane, behind every woken one.)
/// On one worker every task is parked when woken; on more, one parked late
/// may miss the wake, so `wake` must outlive the runtime.
task<std::vector<join_handle<void>>> woken_crowd(sync::notify& wake, int count, int rounds) {
    std::atomic<int> parked{0};
    std::vector<join_handle<void>> crowd;
    for (int i = 0; i < count; ++i)
        crowd.push_back(spawn(woken_busy(wake, parked, rounds)));
    while (parked.load() < count)
        co_await yield_now();
    wake.notify_all();
    co_return crowd;
}

/// Holds `child` as a parameter, so the child's last reference goes with
/// this task's frame; cancels it once `go` fires.
task<void> cancelling_child(join_handle<void> child, test::manual_event& go) {
    co_await go.wait();
    child.cancel();
    co_await yield_now();
}

/// Sets `unwound` when its body unwinds, and `destroyed` with its frame.
task<void> marked(flag_on_destroy, bool& unwound, test::manual_event& go) {
    struct mark {
        bool& set;
        ~mark() { set = true; }
    } on_unwind{unwound};
    co_await go.wait();
    co_await yield_now();
}

}  // namespace

// A cancellation that finds a task waiting in the ready lane queues it a
// second time, in the cancel lane; whichever entry comes out first runs it,
// the other must be dropped when it comes out. Each case below makes one of
// the two come out first, and the task keeps being requeued meanwhile.
TEST_CASE("cancel lane: a task queued twice by its cancellation runs once - stand-in first") {
    sync::notify wake;  // outlives the runtime
    runtime rt;
    test::manual_event go;
    rt.block_on([&]() -> task<void> {
        auto target = spawn(stubborn(go, 5));
        while (!go.armed())
            co_await yield_now();
        auto crowd = co_await woken_crowd(wake, 1'000, 2);
        const long polls_before = ready_polls.load();
        go.fire();  // queued in the ready lane, behind the crowd
        target.cancel();
        // It runs from its cancel-lane entry and finishes while its first
        // entry still waits behind the crowd; the frame is released here.
        auto result = co_await std::move(target);
        CHECK(ready_polls.load() - polls_before < 1'000);  // the entry is still queued
        CHECK(result.is_ok());
        CHECK(result.value() == 6);
        for (auto& h : crowd)
            co_await std::move(h);
    }());
}

TEST_CASE("cancel lane: a task queued twice by its cancellation is destroyed when joined") {
    sync::notify wake;  // outlives the runtime
    runtime rt;
    test::manual_event go;
    bool parameter_destroyed = false;
    rt.block_on([&]() -> task<void> {
        auto target = spawn(holding(flag_on_destroy(parameter_destroyed), go));
        while (!go.armed())
            co_await yield_now();
        auto crowd = co_await woken_crowd(wake, 1'000, 2);
        const long polls_before = ready_polls.load();
        go.fire();
        target.cancel();
        CHECK((co_await std::move(target)).is_cancelled());
        // Its first entry still waits behind the crowd; its frame, with the
        // parameter, is gone all the same.
        CHECK(ready_polls.load() - polls_before < 1'000);
        CHECK(parameter_destroyed);
        for (auto& h : crowd)
            co_await std::move(h);
    }());
}

TEST_CASE("cancel lane: a task queued twice by its cancellation runs once - own entry first") {
    // A streak limit of 1 lets the ready lane's head out after one cancel pop.
    runtime_config config;
    config.lanes.options["three_lane"]["cancel_streak_limit"] = std::int64_t{1};
    runtime rt(config);
    test::manual_event go, never_a, never_b;
    long unwound_a = -1, unwound_b = -1;
    rt.block_on([&]() -> task<void> {
        auto target = spawn(stubborn(go, 5));
        auto first = spawn(cancelled_later(never_a, unwound_a));
        auto second = spawn(cancelled_later(never_b, unwound_b));
        while (!go.armed() || !never_a.armed() || !never_b.armed())
            co_await yield_now();
        go.fire();        // ready: [target]
        first.cancel();   // cancel: [first]
        second.cancel();  // cancel: [first, second]
        target.cancel();  // cancel: [first, second, target's stand-in]
        // Pops: first, then target from the ready lane (the streak is spent),
        // second, then the stand-in, which must be dropped.
        auto result = co_await std::move(target);
        CHECK(result.is_ok());
        CHECK(result.value() == 6);
        CHECK((co_await std::move(first)).is_cancelled());
        CHECK((co_await std::move(second)).is_cancelled());
    }());
}

TEST_CASE("cancel lane: on two workers tasks cancelled from outside while stolen run once each") {
    runtime rt(test::multi_thread(2));
    constexpr int count = 2'000;
    constexpr int yields = 20;
    std::vector<std::atomic<int>> polls(count);
    std::vector<join_handle<int>> handles;
    rt.block_on([&]() -> task<void> {
        auto spawner = spawn(spawn_counted(handles, polls, yields));
        co_await std::move(spawner);
        // From this thread, which drives no worker: each request reaches the
        // task's worker through its inbox while the other worker steals.
        for (auto& h : handles)
            h.cancel();
        for (int i = 0; i < count; ++i) {
            auto result = co_await std::move(handles[static_cast<std::size_t>(i)]);
            const int seen = polls[static_cast<std::size_t>(i)].load();
            if (result.is_ok()) {
                CHECK(result.value() == yields + 1);
                CHECK(seen == yields + 1);
            } else {
                // Cancelled before its first poll: its body never ran.
                CHECK(result.is_cancelled());
                CHECK(seen == 0);
            }
        }
    }());
}

TEST_CASE(
    "cancel lane: on two workers a task cancelled behind a busy worker unwinds on the other") {
    // The cancelling task queues the cancelled one on its own worker and then
    // keeps that worker busy until it has unwound: only the other worker,
    // idle, can run it, by stealing from the cancel lane. (A round where the
    // request lands while the task's poll is still ending unwinds it where it
    // ran; the rounds make it certain that some round tests the steal.)
    test::run_or_abort_on_deadlock("a cancelled task behind a busy worker", [] {
        runtime rt(test::multi_thread(2));
        for (int round = 0; round < 20; ++round) {
            test::manual_event never;
            std::atomic<bool> unwound{false};
            const bool unwound_meanwhile = rt.block_on(
                [](test::manual_event& never, std::atomic<bool>& unwound) -> task<bool> {
                    auto waiting = spawn(wait_and_record_unwind(never, unwound));
                    while (!never.armed())
                        std::this_thread::yield();
                    auto canceller = spawn(cancel_and_hold_worker(waiting, unwound));
                    outcome<bool> seen = co_await std::move(canceller);
                    const outcome<void> cancelled = co_await std::move(waiting);
                    CHECK(cancelled.is_cancelled());
                    co_return std::move(seen).value();
                }(never, unwound));
            REQUIRE_MESSAGE(unwound_meanwhile, "round " << round);
        }
    });
}

TEST_CASE("cancel lane: a runtime shut down with stale entries queued frees what they kept") {
    test::on_both_flavors([&](const runtime_config& config) {
        test::manual_event go;
        sync::notify wake;
        bool parameter_destroyed = false;
        {
            runtime rt(config);
            rt.block_on([&]() -> task<void> {
                auto target = spawn(holding(flag_on_destroy(parameter_destroyed), go));
                while (!go.armed())
                    co_await yield_now();
                // Tasks that do not finish before the runtime shuts down, so
                // the lanes are still full then.
                (void)co_await woken_crowd(wake, 100, std::numeric_limits<int>::max());
                go.fire();
                target.cancel();
                // Its first entry stays queued behind the others (on one
                // worker), keeping the frame's memory.
                CHECK((co_await std::move(target)).is_cancelled());
            }());
            CHECK(parameter_destroyed);
        }
        // Leak checking (AddressSanitizer) sees whether shutdown freed it.
    });
}

TEST_CASE("cancel lane: a frame kept for a stale entry may hold another such task") {
    // Both tasks run from their stand-ins and leave their own entries stale
    // behind the crowd; destroying the parent's frame drops the child's last
    // reference inside it, so the child's frame is kept and destroyed within
    // the parent's.
    sync::notify wake;  // outlives the runtime
    runtime rt;
    test::manual_event go_parent, go_child;
    bool child_unwound = false, child_destroyed = false;
    rt.block_on([&]() -> task<void> {
        auto child = spawn(marked(flag_on_destroy(child_destroyed), child_unwound, go_child));
        auto parent = spawn(cancelling_child(std::move(child), go_parent));
        while (!go_parent.armed() || !go_child.armed())
            co_await yield_now();
        auto crowd = co_await woken_crowd(wake, 1'000, 2);
        const long polls_before = ready_polls.load();
        go_child.fire();   // ready: [crowd, child]
        go_parent.fire();  // ready: [crowd, child, parent]
        parent.cancel();   // the parent runs first and cancels the child
        while (!child_unwound)
            co_await yield_now();
        CHECK((co_await std::move(parent)).is_cancelled());
        CHECK(ready_polls.load() - polls_before < 1'000);  // both entries are still queued
        CHECK(child_destroyed);
        for (auto& h : crowd)
            co_await std::move(h);
    }());
}

TEST_CASE(
    "cancel lane: a finished task leaves the runtime quiescent though its move request is unread") {
    // One worker thread, held in turn by two tasks while this thread looks:
    // - `gate` holds it while the task `target` waits in its ready lane, and
    //   this thread cancels `target`: the request to move it to the cancel
    //   lane waits in the worker's inbox;
    // - `target` then runs from its own entry and finishes;
    // - `last` finishes, and its parameter's destructor holds the worker
    //   until this thread has asked whether the runtime is quiescent. No task
    //   is alive then; only the request, now pointless, is unread.
    test::run_or_abort_on_deadlock("a worker held by its own test", [] {
        runtime rt(test::multi_thread(1));
        std::latch gate_reached{1}, gate_open{1}, last_dying{1}, looked{1};
        struct holds_worker_when_destroyed {
            std::latch* dying;
            std::latch* released;
            holds_worker_when_destroyed(std::latch& d, std::latch& r) : dying(&d), released(&r) {}
            holds_worker_when_destroyed(holds_worker_when_destroyed&& o) noexcept
                : dying(std::exchange(o.dying, nullptr)), released(o.released) {}
            ~holds_worker_when_destroyed() {
                if (!dying) return;
                dying->count_down();
                released->wait();
            }
        };
        join_handle<void> target = rt.block_on([&]() -> task<join_handle<void>> {
            // Spawned from the worker, so all three queue on it in this order.
            co_return (co_await spawn([&]() -> task<join_handle<void>> {
                (void)spawn([](std::latch& reached, std::latch& open) -> task<void> {
                    reached.count_down();
                    open.wait();
                    co_return;
                }(gate_reached, gate_open));
                auto t = spawn([]() -> task<void> { co_return; }());
                (void)spawn([](holds_worker_when_destroyed) -> task<void> {
                    co_return;
                }(holds_worker_when_destroyed{last_dying, looked}));
                co_return t;
            }()))
                .value();
        }());
        gate_reached.wait();
        target.cancel(cancel_reason{"stop"});
        gate_open.count_down();
        last_dying.wait();
        rt.block_on([](join_handle<void> t) -> task<void> {
            (void)co_await std::move(t);
        }(std::move(target)));
        const bool quiescent = rt.is_quiescent();
        looked.count_down();
        CHECK(quiescent);
    });
}
