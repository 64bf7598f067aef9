#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

task<int> finishes(int v) {
    co_return v;
}

task<int> throws() {
    throw std::runtime_error("boom");
    co_return 0;
}

task<void> sleeps_long() {
    co_await sleep(std::chrono::hours(1));
}

/// spawned == completed + cancelled + panicked + alive, with no counter gone
/// below zero on the way (they are unsigned: a wrap shows as a huge alive).
void check_adds_up(const runtime_metrics& m) {
    CHECK(m.tasks_spawned ==
          m.tasks_completed + m.tasks_cancelled + m.tasks_panicked + m.tasks_alive);
    CHECK(m.tasks_alive <= m.tasks_spawned);
    CHECK(m.tasks_peak_alive >= m.tasks_alive);
}

/// Waits until no timer is pending: a timer armed on a worker is disarmed by
/// that worker when it gets the request, which may come after its task ended.
runtime_metrics settled_metrics(const runtime& rt) {
    runtime_metrics m = rt.metrics();
    while (m.timers_pending != 0)
        m = rt.metrics();
    return m;
}

/// Spawns 40 tasks that end ok, 5 that throw and 3 that are cancelled while
/// they sleep; joins them all.
task<void> mixed_outcomes(const runtime& rt) {
    std::vector<join_handle<int>> ok;
    for (int i = 0; i < 40; ++i)
        ok.push_back(spawn(finishes(i)));
    std::vector<join_handle<int>> failing;
    for (int i = 0; i < 5; ++i)
        failing.push_back(spawn(throws()));
    std::vector<join_handle<void>> sleepers;
    for (int i = 0; i < 3; ++i)
        sleepers.push_back(spawn(sleeps_long()));
    for (auto& h : ok)
        (void)co_await std::move(h);
    for (auto& h : failing)
        (void)co_await std::move(h);
    while (rt.metrics().timers_pending < 3)  // the sleepers have armed their timers
        co_await yield_now();
    for (auto& h : sleepers) {
        h.cancel();
        (void)co_await std::move(h);
    }
}

}  // namespace

TEST_CASE("metrics: task outcomes add up on both flavors") {
    for (const runtime_config& config : {runtime_config{}, test::multi_thread(2)}) {
        CAPTURE(config.flavor);
        runtime rt(config);
        rt.block_on(mixed_outcomes(rt));
        const runtime_metrics m = settled_metrics(rt);
        CHECK(m.tasks_spawned == 48);
        CHECK(m.tasks_completed == 40);
        CHECK(m.tasks_panicked == 5);
        CHECK(m.tasks_cancelled == 3);
        CHECK(m.tasks_alive == 0);
        check_adds_up(m);
        CHECK(m.polls >= 48);
        CHECK(m.timers_armed == 3);
        CHECK(m.timers_cancelled + m.timers_fired == 3);
        CHECK(m.timers_pending == 0);
        CHECK(m.workers.size() ==
              static_cast<std::size_t>(config.workers == 0 ? 1 : config.workers));
        CHECK(m.roots_running == 0);
    }
}

TEST_CASE("metrics: a snapshot taken while two workers run adds up") {
    runtime rt(test::multi_thread(2));
    std::atomic<bool> done{false};
    std::thread reader([&] {
        while (!done.load()) {
            const runtime_metrics m = rt.metrics();
            REQUIRE(m.tasks_spawned ==
                    m.tasks_completed + m.tasks_cancelled + m.tasks_panicked + m.tasks_alive);
            REQUIRE(m.tasks_alive <= m.tasks_spawned);
            REQUIRE(m.timers_pending <= m.timers_armed);
        }
    });
    rt.block_on([]() -> task<void> {
        for (int round = 0; round < 50; ++round) {
            std::vector<join_handle<int>> handles;
            for (int i = 0; i < 200; ++i)
                handles.push_back(spawn(finishes(i)));
            for (auto& h : handles)
                (void)co_await std::move(h);
        }
    }());
    done.store(true);
    reader.join();
    const runtime_metrics m = rt.metrics();
    CHECK(m.tasks_spawned == 10'000);
    CHECK(m.tasks_completed == 10'000);
    CHECK(m.tasks_peak_alive >= 1);  // seen when a worker took a batch in
    CHECK(m.tasks_peak_alive <= 10'000);
}

TEST_CASE("metrics: live gauges while a task sleeps and a root runs") {
    for (const runtime_config& config : {runtime_config{}, test::multi_thread(2)}) {
        CAPTURE(config.flavor);
        runtime rt(config);
        rt.block_on([&rt]() -> task<void> {
            auto h = spawn(sleeps_long());
            // On multi_thread a worker takes the task in and runs it meanwhile.
            while (rt.metrics().timers_pending == 0)
                co_await yield_now();
            const runtime_metrics m = rt.metrics();
            CHECK(m.tasks_alive == 1);
            CHECK(m.timers_pending == 1);
            CHECK(m.roots_running == 1);
            h.cancel();
            (void)co_await std::move(h);
        }());
        const runtime_metrics after = settled_metrics(rt);
        CHECK(after.timers_cancelled == 1);
        CHECK(after.tasks_alive == 0);
        CHECK(after.tasks_cancelled == 1);
    }
}

TEST_CASE("metrics: a wake from a thread outside the runtime is counted as such") {
    for (const runtime_config& config : {runtime_config{}, test::multi_thread(2)}) {
        CAPTURE(config.flavor);
        runtime rt(config);
        test::manual_event event;
        std::thread waker_thread;
        rt.block_on([&]() -> task<void> {
            auto h = spawn([](test::manual_event& e) -> task<void> { co_await e.wait(); }(event));
            waker_thread = std::thread([&] {
                REQUIRE(event.wait_until_armed(10s));
                event.fire();
            });
            (void)co_await std::move(h);
        }());
        waker_thread.join();
        const runtime_metrics m = rt.metrics();
        CHECK(m.wakes_outside == 1);
        CHECK(m.tasks_completed == 1);
    }
}

TEST_CASE("metrics: same-worker wakes are counted on the worker that made them") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = sync::make_channel<int>(1);
        auto consumer = spawn([](sync::channel_receiver<int> in) -> task<int> {
            int sum = 0;
            while (auto v = co_await in.recv())
                sum += *v;
            co_return sum;
        }(std::move(rx)));
        {
            auto sender = std::move(tx);  // dropped at the end: the channel closes
            for (int i = 0; i < 100; ++i)
                (void)co_await sender.send(i);
        }
        (void)co_await std::move(consumer);
    }());
    const runtime_metrics m = rt.metrics();
    CHECK(m.wakes_same_worker >= 50);
    CHECK(m.wakes_other_worker == 0);
    CHECK(m.wakes_outside == 0);
    REQUIRE(m.workers.size() == 1);
    CHECK(m.workers[0].wakes_same_worker == m.wakes_same_worker);
}

namespace {
task<void> spins_until(std::atomic<bool>& started, const std::atomic<bool>& released) {
    started = true;
    while (!released.load())
        std::this_thread::yield();
    co_return;
}

task<join_handle<void>> spawns_spinner(std::atomic<bool>& started,
                                       const std::atomic<bool>& released) {
    co_return spawn(spins_until(started, released));
}
}  // namespace

TEST_CASE("metrics: a poll is counted when it starts - not when its worker's batch ends") {
    // One worker polls the parent, which wakes the root as it ends, and then
    // the spinner in the same dispatch batch; the root reads the metrics
    // once the spinner runs, while it holds that batch open.
    runtime rt(test::multi_thread(1));
    std::atomic<bool> started{false}, released{false};
    rt.block_on([&]() -> task<void> {
        join_handle<void> spinner =
            std::move((co_await spawn(spawns_spinner(started, released))).value());
        while (!started.load())
            std::this_thread::yield();  // the root runs on this thread, off the worker
        CHECK(rt.metrics().polls >= 2);
        released = true;
        co_await std::move(spinner);
    }());
}
