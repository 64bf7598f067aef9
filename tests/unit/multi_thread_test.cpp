// The multi_thread flavor: worker threads, the injector, stealing, parking,
// block_on from outside, spawn_local, and shutdown in the middle of work.
// These run under ThreadSanitizer in CI; sizes are chosen for that.
#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "fault_plugins.hpp"
#include "remote_request.hpp"
#include "rtkit/plugin_loader.hpp"
#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"
#include "thread_context.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

using namespace rtkit;
using namespace std::chrono_literals;
using test::multi_thread;

namespace rtkit::detail {
/// Lets a test begin shutdown again and again on one worker group.
struct worker_group_test_access {
    static void undo_shutdown(worker_group& group) { group.shutting_down_.store(false); }
};
}  // namespace rtkit::detail

namespace {

/// Counts frames alive: every task that holds one is finalised when the
/// count is back to zero.
struct alive {
    static inline std::atomic<int> count{0};
    alive() { ++count; }
    alive(const alive&) = delete;
    ~alive() { --count; }
};

/// Sets `flag` when it runs.
task<void> set_when_run(std::atomic<bool>& flag) {
    flag = true;
    co_return;
}

}  // namespace

TEST_CASE("multi_thread: tasks run on the worker threads - the root on the caller") {
    runtime rt(multi_thread(2));
    CHECK(rt.description().workers == 2);
    const auto me = std::this_thread::get_id();
    const auto threads = rt.block_on([&]() -> task<std::set<std::thread::id>> {
        CHECK(std::this_thread::get_id() == me);
        std::vector<join_handle<std::thread::id>> hs;
        for (int i = 0; i < 200; ++i)
            hs.push_back(spawn(test::thread_of_task()));
        std::set<std::thread::id> seen;
        for (auto& h : hs)
            seen.insert((co_await std::move(h)).value());
        co_return seen;
    }());
    CHECK_FALSE(threads.count(me));
    CHECK(threads.size() >= 1);
    CHECK(threads.size() <= 2);
    CHECK(rt.is_quiescent());
}

TEST_CASE("multi_thread: workers = 0 runs one worker per CPU") {
    runtime rt(multi_thread(0));
    CHECK(rt.description().workers ==
          std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
    CHECK(rt.block_on(test::value_of(3)) == 3);
}

TEST_CASE("multi_thread: block_on on a worker thread is refused - not a deadlock") {
    runtime rt(multi_thread(2));
    const outcome<int> inner = rt.block_on([&]() -> task<outcome<int>> {
        co_return co_await spawn(
            [](runtime& r) -> task<int> { co_return r.block_on(test::value_of(1)); }(rt));
    }());
    REQUIRE(inner.is_panicked());
    CHECK_THROWS_WITH_AS(std::rethrow_exception(inner.exception()),
                         doctest::Contains("worker threads would block that worker"),
                         std::logic_error);
}

TEST_CASE("multi_thread: block_on from several outside threads at once - spawn storms") {
    test::run_or_abort_on_deadlock("spawn storms from outside threads", [] {
        runtime rt(multi_thread(2));
        constexpr int callers = 4;
        constexpr int per_caller = 2'000;
        std::vector<std::thread> threads;
        std::atomic<long> total{0};
        for (int c = 0; c < callers; ++c)
            threads.emplace_back([&] {
                total += rt.block_on([]() -> task<long> {
                    std::vector<join_handle<std::int64_t>> hs;
                    for (int i = 0; i < per_caller; ++i)
                        hs.push_back(spawn(test::value_of(i)));
                    long sum = 0;
                    for (auto& h : hs)
                        sum += (co_await std::move(h)).value();
                    co_return sum;
                }());
            });
        for (auto& t : threads)
            t.join();
        CHECK(total == callers * (per_caller * (per_caller - 1L) / 2));
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("multi_thread: spawn_local stays on the worker thread that spawned it") {
    runtime rt(multi_thread(2));
    const bool all_home = rt.block_on([]() -> task<bool> {
        co_return (co_await spawn([]() -> task<bool> {
            const auto home = std::this_thread::get_id();
            std::vector<join_handle<std::thread::id>> hs;
            // Many, yielding and sleeping: the other worker is idle and
            // steals what it can, but none of these may move.
            for (int i = 0; i < 300; ++i)
                hs.push_back(cx::current().spawn_local([]() -> task<std::thread::id> {
                    co_await yield_now();
                    co_await sleep(1ms);
                    co_await yield_now();
                    co_return std::this_thread::get_id();
                }()));
            bool same = true;
            for (auto& h : hs)
                same = same && (co_await std::move(h)).value() == home;
            co_return same;
        }()))
            .value();
    }());
    CHECK(all_home);
}

TEST_CASE("multi_thread: a local task a thief was given goes back into its worker's lanes") {
    // A busy task queues a local task, then two others, and holds its worker
    // until the idle worker has run one of those: that worker stole from the
    // front of the ready lane, so it was given the local task too, which
    // only its own worker may run. The local task must be queued there again
    // at once. (Sent to that worker's inbox, it would wait for the next
    // inbox drain, which a worker with queued tasks makes once every 61
    // polls.) Each round is a fresh start in the drain's cycle. Only the
    // busy task's polls on its home worker count: the idle worker may steal
    // it too, and its polls there race the home worker's wake-up.
    test::run_or_abort_on_deadlock("a stolen local task sent home", [] {
        runtime rt(multi_thread(2));
        for (int round = 0; round < 10; ++round) {
            const int home_yields_until_local_ran = rt.block_on([]() -> task<int> {
                co_return (co_await spawn([]() -> task<int> {
                    std::atomic<bool> local_ran{false};
                    std::atomic<bool> stolen_ran{false};
                    std::atomic<bool> last_ran{false};
                    auto local = cx::current().spawn_local(set_when_run(local_ran));
                    auto stolen = spawn(set_when_run(stolen_ran));
                    auto last = spawn(set_when_run(last_ran));
                    while (!stolen_ran)
                        std::this_thread::yield();
                    const auto home = std::this_thread::get_id();
                    int yields = 0;
                    while (!local_ran) {
                        co_await yield_now();
                        if (std::this_thread::get_id() == home) ++yields;
                    }
                    co_await std::move(local);
                    co_await std::move(stolen);
                    co_await std::move(last);
                    co_return yields;
                }()))
                    .value();
            }());
            CHECK_MESSAGE(home_yields_until_local_ran < 20, "round " << round);
        }
    });
}

TEST_CASE("multi_thread: a thief given local tasks first still reaches the task behind them") {
    // Two local tasks, then an ordinary one, queued on a worker that its
    // task holds until the ordinary one has run: the idle worker, given the
    // local tasks first, must go on to the ordinary task behind them.
    test::run_or_abort_on_deadlock("a task behind local ones", [] {
        runtime rt(multi_thread(2));
        for (int round = 0; round < 10; ++round) {
            const bool stolen_in_time = rt.block_on([]() -> task<bool> {
                co_return (co_await spawn([]() -> task<bool> {
                    std::atomic<bool> first_ran{false};
                    std::atomic<bool> second_ran{false};
                    std::atomic<bool> stolen_ran{false};
                    auto first = cx::current().spawn_local(set_when_run(first_ran));
                    auto second = cx::current().spawn_local(set_when_run(second_ran));
                    auto stolen = spawn(set_when_run(stolen_ran));
                    const auto limit = std::chrono::steady_clock::now() + 10s;
                    while (!stolen_ran && std::chrono::steady_clock::now() < limit)
                        std::this_thread::yield();
                    const bool in_time = stolen_ran;
                    co_await std::move(first);
                    co_await std::move(second);
                    co_await std::move(stolen);
                    co_return in_time;
                }()))
                    .value();
            }());
            REQUIRE_MESSAGE(stolen_in_time, "round " << round);
        }
    });
}

namespace {
/// Where a local task was spawned, woken and resumed.
struct local_wake_seen {
    std::thread::id home;     ///< its worker's thread, which spawned it
    std::thread::id waker;    ///< the thread that woke it
    std::thread::id resumed;  ///< the thread its poll after the wake ran on
};

/// Waits for `event`, then returns the thread it resumed on.
task<std::thread::id> resumed_on_after(test::manual_event& event) {
    co_await event.wait();
    co_return std::this_thread::get_id();
}

/// Spawns a local task that waits for `event` on the worker this task runs
/// on, has `wake_it` fire the event once it waits (called on this task's
/// thread at that time, which may be another worker's by then), and reports
/// where it resumed.
task<local_wake_seen> wake_local_task(
    test::manual_event& event, std::function<task<std::thread::id>(std::thread::id)> wake_it) {
    local_wake_seen seen;
    seen.home = std::this_thread::get_id();  // before any await: this is its worker
    auto local = cx::current().spawn_local(resumed_on_after(event));
    co_await test::yield_until([&] { return event.armed(); });
    seen.waker = co_await wake_it(seen.home);
    seen.resumed = (co_await std::move(local)).value();
    co_return seen;
}
}  // namespace

TEST_CASE("multi_thread: a local task woken from a foreign thread resumes on its worker's thread") {
    runtime rt(multi_thread(2));
    test::manual_event event;
    const local_wake_seen seen = rt.block_on([&]() -> task<local_wake_seen> {
        co_return (co_await spawn(wake_local_task(event,
                                                  [&](std::thread::id) -> task<std::thread::id> {
                                                      std::thread foreign([&] { event.fire(); });
                                                      const std::thread::id waker =
                                                          foreign.get_id();
                                                      foreign.join();
                                                      co_return waker;
                                                  })))
            .value();
    }());
    CHECK(seen.waker != seen.home);
    CHECK(seen.resumed == seen.home);
    // Sent to its worker's inbox, not through the injector: nothing is left
    // counted as waiting there.
    CHECK(rt.metrics().injection_queue_depth == 0);
}

TEST_CASE(
    "multi_thread: a local task woken from the other worker resumes on its own worker's thread") {
    runtime rt(multi_thread(2));
    test::manual_event event;
    const local_wake_seen seen = rt.block_on([&]() -> task<local_wake_seen> {
        co_return (co_await spawn(wake_local_task(
                       event,
                       [&](std::thread::id home) -> task<std::thread::id> {
                           if (std::this_thread::get_id() != home) {
                               // This task moved to the other worker: wake from here.
                               event.fire();
                               co_return std::this_thread::get_id();
                           }
                           // Holding the local task's worker: a task spawned now
                           // runs on the other one, which steals it.
                           std::atomic<bool> fired{false};
                           auto firing =
                               spawn([](test::manual_event& e,
                                        std::atomic<bool>& done) -> task<std::thread::id> {
                                   e.fire();
                                   done = true;
                                   co_return std::this_thread::get_id();
                               }(event, fired));
                           const auto limit = std::chrono::steady_clock::now() + 10s;
                           while (!fired && std::chrono::steady_clock::now() < limit)
                               std::this_thread::yield();
                           REQUIRE(fired);
                           co_return (co_await std::move(firing)).value();
                       })))
            .value();
    }());
    CHECK(seen.waker != seen.home);
    CHECK(seen.resumed == seen.home);
}

TEST_CASE("multi_thread: spawn_local from a root on a non-worker thread is refused") {
    runtime rt(multi_thread(2));
    CHECK_THROWS_AS(rt.block_on([]() -> task<void> {
        (void)cx::current().spawn_local([]() -> task<void> { co_return; }());
        co_return;
    }()),
                    no_runtime_error);
}

namespace {

/// The root spawns two tasks from outside the workers: whichever worker
/// takes both from the injector runs the first, which holds its thread until
/// the second has run (giving up after `patience`), so the second must be
/// stolen by the other worker. True when it was.
bool second_task_stolen_while_first_holds_its_worker(runtime& rt, std::chrono::seconds patience) {
    std::atomic<bool> second_ran{false};
    return rt.block_on([](std::atomic<bool>& ran, std::chrono::seconds patience) -> task<bool> {
        auto first = spawn([](std::atomic<bool>& ran, std::chrono::seconds patience) -> task<bool> {
            const auto deadline = std::chrono::steady_clock::now() + patience;
            while (!ran.load() && std::chrono::steady_clock::now() < deadline)
                std::this_thread::yield();
            co_return ran.load();
        }(ran, patience));
        auto second = spawn([](std::atomic<bool>& ran) -> task<void> {
            ran.store(true);
            co_return;
        }(ran));
        co_await std::move(second);
        outcome<bool> first_saw_it = co_await std::move(first);
        co_return first_saw_it.value();
    }(second_ran, patience));
}

}  // namespace

TEST_CASE("multi_thread: tasks injected together reach a second worker while the first is busy") {
    test::run_or_abort_on_deadlock("injected work only another worker can steal", [] {
        runtime rt(multi_thread(2));
        for (int round = 0; round < 20; ++round)
            CHECK(second_task_stolen_while_first_holds_its_worker(rt, 10s));
    });
}

TEST_CASE("multi_thread: a worker refused searching still sees work the searcher leaves") {
    // A fresh runtime per round: its workers start awake, one of them
    // searching. The other is refused searching and heads for parking while
    // the searcher takes both injected tasks and runs the first. The second
    // can only be stolen by the worker that was refused, so that worker must
    // look at the lanes once more when it parks, whether or not it was the
    // last searcher.
    test::run_or_abort_on_deadlock(
        "work left behind a worker that parked without searching",
        [] {
            for (int round = 0; round < 300; ++round) {
                runtime rt(multi_thread(2));
                REQUIRE_MESSAGE(second_task_stolen_while_first_holds_its_worker(rt, 5s),
                                "round " << round);
            }
        },
        60s);
}

TEST_CASE("multi_thread: work reachable only by stealing gets done") {
    test::run_or_abort_on_deadlock("work only another worker can steal", [] {
        runtime rt(multi_thread(2));
        std::atomic<int> done{0};
        const bool other_thread_ran_some = rt.block_on([&]() -> task<bool> {
            co_return (co_await spawn([](std::atomic<int>& d) -> task<bool> {
                const auto me = std::this_thread::get_id();
                std::atomic<int> elsewhere{0};
                std::vector<join_handle<void>> hs;
                for (int i = 0; i < 64; ++i)
                    hs.push_back(spawn([](std::atomic<int>& d, std::atomic<int>& e,
                                          std::thread::id spawner) -> task<void> {
                        if (std::this_thread::get_id() != spawner) ++e;
                        ++d;
                        co_return;
                    }(d, elsewhere, me)));
                // They sit in this worker's lanes, and this task does not
                // yield until they are done: only a thief can run them.
                while (d.load() < 64)
                    std::this_thread::yield();
                for (auto& h : hs)
                    co_await std::move(h);
                co_return elsewhere.load() == 64;
            }(done)))
                .value();
        }());
        CHECK(done == 64);
        CHECK(other_thread_ran_some);
    });
}

TEST_CASE(
    "multi_thread: a worker that runs dry parks while the busy one keeps what it may not steal") {
    // The hoarding lanes give thieves nothing, as a lane plugin may. Each
    // round queues one more task on the busy worker, which wakes the idle
    // one: it asks for work, is refused, and must then wait in the reactor (a
    // blocking wait, which the faulty reactor counts) instead of waking
    // itself to ask again for as long as the busy worker holds its entries.
    test::run_or_abort_on_deadlock("an idle worker next to work it may not steal", [] {
        runtime_config c = multi_thread(2);
        test::use_faulty(c, "lanes");
        test::use_faulty(c, "reactor");
        runtime rt(c);
        test::plugin_control& lanes = test::control_of("lanes");
        test::plugin_control& reactor = test::control_of("reactor");
        const int rounds_parked = rt.block_on(
            [](test::plugin_control& lanes, test::plugin_control& reactor) -> task<int> {
                co_return (co_await spawn([](test::plugin_control& lanes,
                                             test::plugin_control& reactor) -> task<int> {
                    std::vector<join_handle<std::int64_t>> queued;
                    int parked = 0;
                    for (int round = 0; round < 3; ++round) {
                        const int asked = lanes.steal_requests();
                        const int waits = reactor.blocking_waits();
                        queued.push_back(spawn(test::value_of(round)));
                        while (lanes.steal_requests() == asked)
                            std::this_thread::yield();
                        // A worker that keeps asking has found no rest.
                        while (reactor.blocking_waits() == waits &&
                               lanes.steal_requests() < asked + 1000)
                            std::this_thread::yield();
                        if (reactor.blocking_waits() > waits) ++parked;
                    }
                    for (auto& h : queued)
                        co_await std::move(h);
                    co_return parked;
                }(lanes, reactor)))
                    .value();
            }(lanes, reactor));
        CHECK(rounds_parked == 3);
    });
}

TEST_CASE("multi_thread: ping-pong across workers over channels") {
    runtime rt(multi_thread(2));
    constexpr long rounds = 20'000;
    const long sum = rt.block_on([]() -> task<long> {
        auto [to_b_tx, to_b_rx] = sync::make_channel<long>(1);
        auto [to_a_tx, to_a_rx] = sync::make_channel<long>(1);
        auto a = spawn(
            [](sync::channel_sender<long> out, sync::channel_receiver<long> in) -> task<long> {
                long total = 0;
                for (long i = 0; i < rounds; ++i) {
                    co_await out.send(i);
                    total += (co_await in.recv()).value();
                }
                co_return total;
            }(std::move(to_b_tx), std::move(to_a_rx)));
        auto b = spawn(
            [](sync::channel_receiver<long> in, sync::channel_sender<long> out) -> task<void> {
                while (auto v = co_await in.recv())
                    co_await out.send(*v + 1);
            }(std::move(to_b_rx), std::move(to_a_tx)));
        const long total = (co_await std::move(a)).value();
        co_await std::move(b);
        co_return total;
    }());
    CHECK(sum == rounds * (rounds + 1) / 2);
}

TEST_CASE("multi_thread: many wakes from an outside thread reach a task - and coalesce") {
    test::run_or_abort_on_deadlock("cross-thread wakes", [] {
        runtime rt(multi_thread(2));
        test::manual_event armed;
        std::atomic<bool> stop{false};
        std::atomic<long> polls{0};
        rt.block_on([&]() -> task<void> {
            // A task that re-arms its waker on every poll until told to stop.
            struct wake_target {
                std::atomic<bool>& stop;
                std::atomic<long>& polls;
                test::manual_event& armed;
                waker w;
                std::mutex m;
            } target{stop, polls, armed, {}, {}};
            struct awaiter {
                wake_target& t;
                bool await_ready() { return t.stop.load(); }
                void await_suspend(std::coroutine_handle<>) {
                    std::lock_guard lock(t.m);
                    t.w = current_waker();
                }
                void await_resume() { ++t.polls; }
            };
            auto h = spawn([](wake_target& t) -> task<void> {
                t.armed.fire();
                while (!t.stop.load())
                    co_await awaiter{t};
            }(target));
            co_await armed.wait();
            std::thread waker_thread([&] {
                constexpr int wakes = 1'000'000;
                for (int i = 0; i < wakes; ++i) {
                    waker w;
                    {
                        std::lock_guard lock(target.m);
                        w = target.w;
                    }
                    w.wake_by_ref();
                }
                stop = true;
                std::lock_guard lock(target.m);
                target.w.wake_by_ref();
            });
            co_await std::move(h);
            waker_thread.join();
        }());
        CHECK(polls > 0);
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("multi_thread: cancellation racing completion - every outcome is ok or cancelled") {
    runtime rt(multi_thread(2));
    constexpr int count = 3'000;
    int ok = 0, cancelled = 0;
    rt.block_on([&]() -> task<void> {
        std::vector<join_handle<int>> hs;
        for (int i = 0; i < count; ++i)
            hs.push_back(spawn([](int i) -> task<int> {
                if (i % 2) co_await yield_now();
                co_return i;
            }(i)));
        // Cancel from a plain thread while the workers complete them.
        std::thread canceller([&] {
            for (auto& h : hs)
                h.cancel(cancel_reason{"race"});
        });
        canceller.join();
        for (auto& h : hs) {
            const outcome<int> o = co_await std::move(h);
            if (o.is_ok()) ++ok;
            if (o.is_cancelled()) ++cancelled;
        }
    }());
    CHECK(ok + cancelled == count);
    CHECK(rt.is_quiescent());
}

TEST_CASE("multi_thread: timers fire on every worker") {
    runtime rt(multi_thread(2));
    const long late = rt.block_on([]() -> task<long> {
        std::vector<join_handle<duration>> hs;
        for (int i = 0; i < 100; ++i)
            hs.push_back(spawn([](int i) -> task<duration> {
                const instant start = now();
                co_await sleep(std::chrono::milliseconds(1 + i % 7));
                co_return now() - start;
            }(i)));
        long early = 0;
        for (int i = 0; i < 100; ++i)
            if ((co_await std::move(hs[i])).value() < std::chrono::milliseconds(1 + i % 7)) ++early;
        co_return early;
    }());
    CHECK(late == 0);  // no sleep ended before its deadline
}

TEST_CASE("multi_thread: shutdown while every worker is busy - all tasks unwind") {
    const int threads_before = test::baseline_thread_count();
    {
        runtime rt(multi_thread(2));
        std::atomic<int> started{0};
        rt.block_on([&]() -> task<void> {
            for (int i = 0; i < 8; ++i)
                (void)spawn([](std::atomic<int>& s) -> task<void> {
                    alive a;
                    ++s;
                    while (true)
                        co_await yield_now();  // always runnable: the workers never park
                }(started));
            while (started.load() < 8)
                co_await sleep(1ms);
        }());
        CHECK(alive::count == 8);
        rt.shutdown();
        CHECK(alive::count == 0);
        CHECK(rt.is_quiescent());
    }
    CHECK(test::thread_count() == threads_before);
}

TEST_CASE("multi_thread: shutdown while workers are parked - sleepers are cancelled") {
    runtime rt(multi_thread(2));
    rt.block_on([&]() -> task<void> {
        for (int i = 0; i < 50; ++i)
            (void)spawn([]() -> task<void> {
                alive a;
                co_await sleep(std::chrono::hours(1));
            }());
        co_return;
    }());
    rt.shutdown();
    CHECK(alive::count == 0);
}

TEST_CASE("multi_thread: shutdown while tasks keep spawning") {
    runtime rt(multi_thread(2));
    std::atomic<long> spawned{0};
    struct spawner {
        static task<void> run(std::atomic<long>& n) {
            alive a;
            while (true) {
                ++n;
                (void)spawn(run(n));  // each spawns another, for ever
                co_await yield_now();
            }
        }
    };
    rt.block_on([&]() -> task<void> {
        (void)spawn(spawner::run(spawned));
        while (spawned.load() < 1'000)
            co_await sleep(1ms);
    }());
    rt.shutdown();
    CHECK(alive::count == 0);
    CHECK(spawned > 0);
}

TEST_CASE(
    "multi_thread: shutdown while another thread's block_on calls end - no root is touched once "
    "gone") {
    // Shutdown cancels the roots that other threads' block_on calls are
    // running; a root whose call is ending must leave that list before its
    // frame goes. Caught by AddressSanitizer / ThreadSanitizer when not.
    for (int round = 0; round < 200; ++round) {
        runtime rt(multi_thread(1));
        std::atomic<int> calls{0};
        std::thread caller([&] {
            try {
                for (;;) {
                    rt.block_on(test::value_of(1));
                    calls.fetch_add(1, std::memory_order_relaxed);
                }
            } catch (const std::logic_error&) {
                // The runtime was shut down: block_on refuses to start.
            } catch (const task_cancelled&) {
                // Shut down while this call ran.
            }
        });
        while (calls.load(std::memory_order_relaxed) < 20) {
        }
        rt.shutdown();
        caller.join();
    }
}

TEST_CASE("multi_thread: shutdown_timeout lets running work finish") {
    runtime rt(multi_thread(2));
    std::atomic<int> done{0};
    rt.block_on([&]() -> task<void> {
        for (int i = 0; i < 20; ++i)
            (void)spawn([](std::atomic<int>& d) -> task<void> {
                co_await sleep(5ms);
                ++d;
            }(done));
        co_return;
    }());
    const shutdown_report report = rt.shutdown_timeout(60s);
    CHECK(done == 20);
    CHECK(report.cancelled == 0);
}

// A root runs on the caller's thread, so what it spawns waits in the injector
// until a worker takes it: not in any task store yet, but alive all the same.
TEST_CASE("multi_thread: a task spawned by a root that no worker took yet keeps it unquiescent") {
    runtime rt(multi_thread(1));
    std::atomic<int> ran{0};
    int unquiescent_right_after = 0;
    constexpr int rounds = 20;
    for (int round = 0; round < rounds; ++round) {
        const int before = ran.load();
        rt.block_on([&]() -> task<void> {
            join_handle<void> dropped = spawn([](std::atomic<int>& counter) -> task<void> {
                ++counter;
                co_return;
            }(ran));
            co_return;
        }());
        // Either the task is still alive, or it already ran.
        if (!rt.is_quiescent())
            ++unquiescent_right_after;
        else
            CHECK(ran.load() == before + 1);
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!rt.is_quiescent() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        REQUIRE(rt.is_quiescent());
        CHECK(ran.load() == before + 1);
    }
    MESSAGE(unquiescent_right_after << " of " << rounds << " rounds found the task still alive");
}

TEST_CASE("multi_thread: a worker count past the limit is refused before any thread starts") {
    // Worker indexes share a 16-bit field with two flag bits.
    CHECK_THROWS_WITH_AS(runtime(multi_thread(0x4000)),
                         "runtime.workers = 16384: use 0 (one per CPU) up to 16383",
                         std::invalid_argument);
}

TEST_CASE("multi_thread: a worker going to sleep and shutdown beginning always see each other") {
    // The handshake, run as a litmus test on the kernel's own steps: a worker
    // about to sleep says where it waits (parker::announce), then looks at
    // the shutdown flag as its last look does; shutdown sets the flag, then
    // reads where each worker waits to end the wait (begin_shutdown). Each
    // side writes one word and then reads the other's: unless the four are
    // ordered as one sequence, each side may miss the other's write (a store
    // still in its CPU's store buffer), and the worker sleeps on its futex
    // with no timer while shutdown joins it. Both sides start together, the
    // shutting-down side a few pauses later in some rounds than in others.
    plugin_loader loader;
    detail::worker_group group(
        detail::worker_group::flavor::multi_thread,
        std::make_shared<detail::io_driver>(loader.create_by_name<reactor>("epoll"), "epoll"));
    detail::parker& parked = group
                                 .add_worker(loader.create_by_name<timer_driver>("wheel"),
                                             loader.create_by_name<lane_policy>("three_lane"))
                                 .park_state();
    const auto until = std::chrono::steady_clock::now() + 1s;
    std::atomic<int> round{0};  // odd: under way; even: done
    std::atomic<bool> stop{false}, saw_shutdown{false};
    std::thread parking_side([&] {
        for (int r = 1; !stop.load(); r += 2) {
            while (round.load(std::memory_order_acquire) != r)
                if (stop.load()) return;
            parked.announce(detail::parker::on_futex);
            saw_shutdown = group.shutdown_begun_for_parker();
            round.store(r + 1, std::memory_order_release);
        }
    });
    int rounds = 0, missed = 0;
    for (; rounds < 500'000 && std::chrono::steady_clock::now() < until; ++rounds) {
        round.store(2 * rounds + 1, std::memory_order_release);
        for (int pause = rounds % 8; pause > 0; --pause)
            __builtin_ia32_pause();
        group.begin_shutdown();
        while (round.load(std::memory_order_acquire) != 2 * rounds + 2) {
        }
        // Shutdown read the worker running (it left the state alone) and
        // the worker read no shutdown: it would sleep for ever.
        if (!saw_shutdown.load() && parked.current() == detail::parker::on_futex) ++missed;
        parked.clear();
        detail::worker_group_test_access::undo_shutdown(group);
    }
    stop = true;
    parking_side.join();
    CHECK_MESSAGE(missed == 0, missed << " of " << rounds << " rounds");
}

#ifdef RTKIT_CHAOS
TEST_CASE(
    "multi_thread: work from outside reaches a parked worker while a searcher runs its inbox") {
    // A worker that new work picked counts as searching, and while any
    // worker searches, new work wakes nobody. Before it runs what its inbox
    // holds (which may take long) it must stop counting as searching: else
    // work injected meanwhile waits for that inbox although another worker is
    // parked. Here the picked worker finds a request in its inbox and is
    // held while it carries it out; a task injected meanwhile must run.
    using detail::chaos::site;
    test::run_or_abort_on_deadlock("work injected while the searcher runs its inbox", [] {
        std::mutex asleep_mutex;
        std::set<std::thread::id> asleep;
        std::atomic<bool> armed{false};
        std::atomic<detail::worker*> picked{nullptr};
        std::atomic<bool> late_ran{false};
        test::signal_flag holding, hold_over;
        std::atomic<bool> late_ran_while_held{false};
        static constexpr waker_vtable no_op{[](void*) {}, [](void*) {},
                                            [](void* data) { return data; }, [](void*) {}};
        test::chaos_hook hold([&](site s) {
            detail::handle* here = detail::driving();
            if (!here) return;
            if (s == site::park_waiting || s == site::park_woke) {
                std::lock_guard lock(asleep_mutex);
                if (s == site::park_waiting)
                    asleep.insert(std::this_thread::get_id());
                else
                    asleep.erase(std::this_thread::get_id());
            }
            if (!armed.load()) return;
            detail::worker& w = here->owner();
            detail::worker* none = nullptr;
            if (s == site::park_woke && picked.compare_exchange_strong(none, &w)) {
                // Something for its inbox: a timer to arm, far away.
                auto* timer = new detail::remote_timer(w.now() + 1h, waker(nullptr, &no_op));
                w.send_request(
                    new detail::remote_request{detail::remote_request::kind::arm_timer, timer});
            } else if (s == site::inbox_request && picked.load() == &w && !holding.is_set()) {
                holding.set();
                const auto limit = std::chrono::steady_clock::now() + 10s;
                while (!late_ran.load() && std::chrono::steady_clock::now() < limit)
                    std::this_thread::yield();
                late_ran_while_held = late_ran.load();
                hold_over.set();
            }
        });
        runtime rt(multi_thread(2));
        const auto limit = std::chrono::steady_clock::now() + 10s;
        for (bool both = false; !both && std::chrono::steady_clock::now() < limit;) {
            std::this_thread::yield();
            std::lock_guard lock(asleep_mutex);
            both = asleep.size() == 2;
        }
        armed = true;
        rt.block_on([&]() -> task<void> {
            auto first = spawn(test::value_of(1));  // picks a parked worker
            REQUIRE(holding.wait_for(10s));
            auto late = spawn(set_when_run(late_ran));
            co_await std::move(first);
            co_await std::move(late);
        }());
        REQUIRE(hold_over.wait_for(10s));
        CHECK(late_ran_while_held);
    });
}
#endif
