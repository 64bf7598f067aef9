// The cooperative budget: a task whose awaits all complete at once still
// lets the other tasks of its worker run, and its worker still shuts down.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/net/pipe.hpp"
#include "rtkit/sync/channel.hpp"
#include "rtkit/sync/semaphore.hpp"
#include "test_support.hpp"

using namespace rtkit;

namespace {

/// The flavors where two tasks share one worker: current_thread, and
/// multi_thread with a single worker.
std::array<runtime_config, 2> one_worker_flavors() {
    return {runtime_config{}, test::multi_thread(1)};
}

/// The other task: it only raises `flag`. A busy task spawns it just before
/// its loop, so it is queued behind the busy one, on the same worker.
task<void> raises(std::atomic<bool>& flag) {
    flag = true;
    co_return;
}

constexpr std::size_t plenty = 20'000;

// Each busy task below makes its awaits ready, spawns the other task and
// counts the awaits that complete until the flag goes up.

task<std::size_t> receives_until(std::atomic<bool>& stop) {
    sync::channel<std::size_t> ch = sync::make_channel<std::size_t>(plenty);
    for (std::size_t i = 0; i < plenty; ++i)
        REQUIRE(ch.tx.try_send(i) == sync::try_send_result::sent);
    { auto all_sent = std::move(ch.tx); }  // the receiver ends once it has them all
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    while (!stop) {
        if (!co_await ch.rx.recv()) break;
        ++n;
    }
    co_await std::move(other);
    co_return n;
}

task<std::size_t> sends_until(std::atomic<bool>& stop) {
    sync::channel<std::size_t> ch = sync::make_channel<std::size_t>(plenty);
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    while (!stop && n < plenty) {
        if (!co_await ch.tx.send(n)) break;
        ++n;
    }
    co_await std::move(other);
    co_return n;
}

task<std::size_t> acquires_until(std::atomic<bool>& stop) {
    sync::semaphore permits(1);
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    for (; !stop && n < plenty; ++n)
        (void)co_await permits.acquire();
    co_await std::move(other);
    co_return n;
}

task<std::size_t> reads_until(std::atomic<bool>& stop) {
    // Opened on the worker that reads it.
    net::pipe_ends pipe = net::open_pipe();
    std::array<char, 4096> block{};
    for (int i = 0; i < 8; ++i)
        co_await pipe.writer.write_all(block.data(), block.size());
    pipe.writer.close();  // the reader ends once it has it all
    // The first read may wait for the reactor to report the data; from
    // then on every read finds some at once.
    char byte;
    REQUIRE(co_await pipe.reader.read(&byte, 1) == 1);
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    while (!stop) {
        if (co_await pipe.reader.read(&byte, 1) != 1) break;
        ++n;
    }
    co_await std::move(other);
    co_return n;
}

task<void> finishes_at_once(std::size_t& finished) {
    ++finished;
    co_return;
}

task<std::size_t> joins_until(std::atomic<bool>& stop) {
    std::vector<join_handle<void>> finished;
    std::size_t count = 0;
    for (std::size_t i = 0; i < plenty; ++i)
        finished.push_back(spawn(finishes_at_once(count)));
    // Let them all finish: every join below then completes at once.
    while (count < plenty)
        co_await yield_now();
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    for (auto& h : finished) {
        if (stop) break;
        co_await std::move(h);
        ++n;
    }
    co_await std::move(other);
    for (auto& h : finished)
        if (h.record()) co_await std::move(h);
    co_return n;
}

task<std::size_t> ends_at_once(std::size_t value) {
    co_return value;
}

task<std::size_t> awaits_inline_until(std::atomic<bool>& stop) {
    auto other = spawn(raises(stop));
    std::size_t n = 0;
    while (!stop && n < plenty)
        n += co_await ends_at_once(1);
    co_await std::move(other);
    co_return n;
}

/// Runs `busy` as a task on each one-worker flavor: the other task, queued
/// behind it, must have run before `busy` passed a budget's worth of awaits.
void other_task_runs_within_budget(task<std::size_t> (*busy)(std::atomic<bool>&)) {
    for (const runtime_config& config : one_worker_flavors()) {
        INFO("flavor: " << config.flavor << " workers: " << config.workers);
        runtime rt(config);
        std::atomic<bool> other_ran{false};
        const std::size_t awaits =
            rt.block_on([](task<std::size_t> (*busy)(std::atomic<bool>&),
                           std::atomic<bool>& other_ran) -> task<std::size_t> {
                // Spawned, so that it runs on the worker even where block_on's
                // caller is not one.
                outcome<std::size_t> done = co_await spawn(busy(other_ran));
                co_return done.value();
            }(busy, other_ran));
        CHECK(awaits <= detail::coop_budget);
    }
}

}  // namespace

TEST_CASE("coop budget: a receiver whose channel is never empty lets the other tasks run") {
    other_task_runs_within_budget(receives_until);
}

TEST_CASE("coop budget: a sender into a channel with room lets the other tasks run") {
    other_task_runs_within_budget(sends_until);
}

TEST_CASE("coop budget: a task taking permits that are always free lets the other tasks run") {
    other_task_runs_within_budget(acquires_until);
}

TEST_CASE("coop budget: a reader of a pipe that always has data lets the other tasks run") {
    other_task_runs_within_budget(reads_until);
}

TEST_CASE("coop budget: a task joining tasks that have finished lets the other tasks run") {
    other_task_runs_within_budget(joins_until);
}

TEST_CASE("coop budget: a task awaiting tasks that end at once lets the other tasks run") {
    other_task_runs_within_budget(awaits_inline_until);
}

namespace {

/// How far apart the native frames of a loop's rounds lie: the stack that
/// chains of resumptions built under the loop.
task<std::size_t> stack_spread_of_inline_await_loop(int rounds) {
    std::uintptr_t lowest = UINTPTR_MAX;
    std::uintptr_t highest = 0;
    for (int i = 0; i < rounds; ++i) {
        (void)co_await ends_at_once(1);
        const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
        lowest = std::min(lowest, here);
        highest = std::max(highest, here);
    }
    co_return highest - lowest;
}

}  // namespace

TEST_CASE("coop budget: a loop awaiting tasks that end at once keeps its stack short") {
    // Each such task hands control back to its awaiter from its final
    // suspension. Where the compiler does not make that transfer a tail call
    // (GCC without optimisation, as the asan tests are built), every round
    // nests a native frame under the last: 128 bytes a round at -O0, 320
    // under ASan, so a long loop overflows the stack. A yield within the
    // budget unwinds the chain.
    test::on_both_flavors([](const runtime_config& config) {
        runtime rt(config);
        const std::size_t spread = rt.block_on(stack_spread_of_inline_await_loop(5'000));
        CHECK(spread < 256 * 1024);
    });
}

TEST_CASE("coop budget: a block_on root joining finished tasks lets the worker run between") {
    // On current_thread the root is polled by block_on's caller between the
    // worker's batches (which also fire due timers): without the budget it
    // joins them all in one poll, and the worker's other tasks and its
    // timers wait until it is done (a sleep_storm's late tail).
    runtime rt;
    std::atomic<bool> other_ran{false};
    const std::size_t joined = rt.block_on(joins_until(other_ran));
    CHECK(joined <= detail::coop_budget);
}

TEST_CASE("coop budget: a task looping on closed channels does not keep its worker from stopping") {
    // The loop ignores what the channel says (nothing more will come), so
    // every await completes at once. Without the budget its worker never
    // leaves that poll: it never sees the shutdown, and shutdown's join
    // waits for ever.
    for (const runtime_config& config : one_worker_flavors()) {
        INFO("flavor: " << config.flavor << " workers: " << config.workers);
        test::run_or_abort_on_deadlock("shutdown beside a task looping on closed channels", [&] {
            std::atomic<bool> looping{false};  // outlives the runtime and the loop
            runtime rt(config);
            rt.block_on([](std::atomic<bool>& looping) -> task<void> {
                sync::channel<int> ch = sync::make_channel<int>(1);
                { auto last_sender_gone = std::move(ch.tx); }
                (void)spawn(
                    [](sync::channel_receiver<int> in, std::atomic<bool>& looping) -> task<void> {
                        for (;;) {
                            (void)co_await in.recv();
                            looping = true;
                        }
                    }(std::move(ch.rx), looping));
                co_await test::yield_until([&] { return looping.load(); });
            }(looping));
            rt.shutdown();
        });
    }
}
