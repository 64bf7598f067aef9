// Multi-thread scenarios under chaos: each runs once per seed, for the time
// budget (chaos_seeds.hpp), while the kernel's chaos points stall its threads
// at random at every synchronisation point. Each scenario is small, so that
// a budget of seconds tries many seeds; each checks what must hold however
// the threads interleave.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "chaos_seeds.hpp"
#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;
using test::for_each_chaos_seed;
using test::multi_thread;

namespace {

/// Counts live instances: a task holding one has unwound once it is gone.
struct tracked {
    static inline std::atomic<int> live{0};
    tracked() { ++live; }
    tracked(const tracked&) = delete;
    ~tracked() { --live; }
};

task<void> sleeps_holding_tracked() {
    tracked t;
    co_await sleep(std::chrono::hours(1));
}

task<std::int64_t> tree(int depth) {
    if (depth == 0) co_return 1;
    auto left = spawn(tree(depth - 1));
    auto right = spawn(tree(depth - 1));
    co_return (co_await std::move(left)).value() + (co_await std::move(right)).value();
}

/// Tasks that each wait for one wake, and the wakers they leave for other
/// threads: every wake that queues one of them is the one that lets it
/// finish, and the last lets block_on return.
class woken_once {
  public:
    explicit woken_once(std::size_t tasks) : wakers_(tasks) {}
    task<void> wait(std::size_t slot) { co_await leave_waker{*this, slot}; }
    /// Wakes the task in `slot` if it left its waker (any thread).
    void wake(std::size_t slot) {
        waker w;
        {
            std::lock_guard lock(mutex_);
            w = wakers_[slot % wakers_.size()];
        }
        w.wake();
    }

  private:
    struct leave_waker {
        woken_once& owner;
        std::size_t slot;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<>) {
            std::lock_guard lock(owner.mutex_);
            owner.wakers_[slot] = current_waker();
        }
        void await_resume() const noexcept {}
    };
    std::mutex mutex_;
    std::vector<waker> wakers_;
};

}  // namespace

TEST_CASE("chaos: wakes from other threads while the runtime ends and is destroyed") {
    // Threads that drive no worker wake the tasks; each wake that queues a
    // task lets it finish, and once all have, block_on returns and the
    // runtime is destroyed, while those threads may still be inside a wake.
    for_each_chaos_seed("wakes from other threads while the runtime is destroyed", [] {
        constexpr std::size_t tasks = 8;
        auto rt = std::make_unique<runtime>(multi_thread(2));
        woken_once targets(tasks);
        std::atomic<bool> done{false};
        std::vector<std::thread> storm;
        for (int t = 0; t < 2; ++t)
            storm.emplace_back([&, t] {
                for (std::size_t slot = t; !done.load(); ++slot)
                    targets.wake(slot);
            });
        rt->block_on([&]() -> task<void> {
            std::vector<join_handle<void>> hs;
            for (std::size_t i = 0; i < tasks; ++i)
                hs.push_back(spawn(targets.wait(i)));
            for (auto& h : hs)
                co_await std::move(h);
        }());
        rt.reset();  // while the storm goes on
        done = true;
        for (auto& t : storm)
            t.join();
    });
}

TEST_CASE("chaos: timeouts whose timers fire as their scopes close") {
    // A root (polled here, its timers on a worker) and tasks (which may be
    // stolen after arming) each close scopes about when their timers fire.
    // No "timed out" may reach an await after its scope.
    for_each_chaos_seed("timeouts whose timers fire as their scopes close", [] {
        runtime rt(multi_thread(2));
        auto rounds = []() -> task<int> {
            int done = 0;
            for (int i = 0; i < 8; ++i) {
                (void)co_await timeout(1ms, []() -> task<void> { co_await sleep(1ms); }());
                co_await yield_now();
                ++done;
            }
            co_return done;
        };
        const int total = rt.block_on([&]() -> task<int> {
            std::vector<join_handle<int>> hs;
            for (int i = 0; i < 3; ++i)
                hs.push_back(spawn(rounds()));
            int sum = co_await rounds();
            for (auto& h : hs) {
                outcome<int> o = co_await std::move(h);
                CHECK_MESSAGE(o.is_ok(),
                              "a task ended " << (o.is_cancelled() ? "cancelled" : "failed"));
                sum += o.is_ok() ? o.value() : 0;
            }
            co_return sum;
        }());
        CHECK(total == 32);
    });
}

TEST_CASE("chaos: shutdown while the workers go to sleep") {
    // A hang (a worker asleep while shutdown joins it) is caught by the
    // watchdog, which names the seed.
    for_each_chaos_seed("shutdown while the workers go to sleep", [] {
        runtime rt(multi_thread(2));
        rt.block_on([]() -> task<void> {
            for (int i = 0; i < 4; ++i)
                (void)spawn(test::value_of(i));
            co_return;
        }());
        rt.shutdown();
    });
}

TEST_CASE("chaos: two shutdowns at once") {
    for_each_chaos_seed("two shutdowns at once", [] {
        test::on_both_flavors([](const runtime_config& config) {
            runtime rt(config);
            rt.block_on([]() -> task<void> {
                for (int i = 0; i < 4; ++i)
                    (void)spawn(sleeps_holding_tracked());
                co_return;
            }());
            std::atomic<int> live_when_returned{0};
            auto shut_down = [&] {
                rt.shutdown();
                live_when_returned += tracked::live.load();
            };
            std::thread a(shut_down), b(shut_down);
            a.join();
            b.join();
            CHECK(live_when_returned == 0);
        });
    });
}

TEST_CASE("chaos: spawning - stealing - joining - cancelling across workers") {
    for_each_chaos_seed("spawning, stealing, joining, cancelling", [] {
        runtime rt(multi_thread(2));
        std::atomic<int> finished{0};
        const std::int64_t leaves = rt.block_on([&]() -> task<std::int64_t> {
            auto sum = spawn(tree(5));
            // Ping-pong across workers.
            auto [to_b, from_a] = sync::make_channel<int>(1);
            auto [to_a, from_b] = sync::make_channel<int>(1);
            auto a = spawn(
                [](sync::channel_sender<int> out, sync::channel_receiver<int> in) -> task<int> {
                    int total = 0;
                    for (int i = 0; i < 20; ++i) {
                        co_await out.send(i);
                        total += (co_await in.recv()).value();
                    }
                    co_return total;
                }(std::move(to_b), std::move(from_b)));
            auto b = spawn(
                [](sync::channel_receiver<int> in, sync::channel_sender<int> out) -> task<void> {
                    while (auto v = co_await in.recv())
                        co_await out.send(*v + 1);
                }(std::move(from_a), std::move(to_a)));
            // Cancellations from another thread racing completions.
            std::vector<join_handle<void>> racing;
            for (int i = 0; i < 16; ++i)
                racing.push_back(spawn([](int i, std::atomic<int>& f) -> task<void> {
                    if (i % 2) co_await yield_now();
                    ++f;
                }(i, finished)));
            std::thread canceller([&] {
                for (auto& h : racing)
                    h.cancel();
            });
            canceller.join();
            int ended = 0;
            for (auto& h : racing) {
                outcome<void> o = co_await std::move(h);
                ended += o.is_ok() || o.is_cancelled();
            }
            CHECK(ended == 16);
            CHECK((co_await std::move(a)).value() == 20 * 21 / 2);
            co_await std::move(b);
            co_return (co_await std::move(sum)).value();
        }());
        CHECK(leaves == 32);
        // A worker may still be releasing the task whose end woke the root
        // (a chaos point can hold it there): wait for that, within a bound.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!rt.is_quiescent() && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("chaos: a join that replaces a cancelled joiner as the task completes") {
    for_each_chaos_seed("a join replacing a cancelled joiner as the task completes", [] {
        runtime rt(multi_thread(2));
        const int sum = rt.block_on([]() -> task<int> {
            int total = 0;
            for (int round = 0; round < 4; ++round) {
                test::manual_event gate;
                join_handle<int> h = spawn([](test::manual_event& g) -> task<int> {
                    co_await g.wait();
                    co_return 1;
                }(gate));
                auto first_joiner = spawn(
                    [](join_handle<int>& h) -> task<void> { (void)co_await std::move(h); }(h));
                while (!(h.record()->state.load() & detail::task_state::join_waker))
                    co_await yield_now();
                first_joiner.cancel();
                (void)co_await std::move(first_joiner);
                std::thread opener([&] { gate.fire(); });
                total += (co_await std::move(h)).value();
                opener.join();
            }
            co_return total;
        }());
        CHECK(sum == 4);
    });
}
