#include <doctest/doctest.h>

#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Counts live instances, to prove that shutdown runs a task's destructors.
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

}  // namespace

TEST_CASE("shutdown: tasks still sleeping are cancelled and their destructors run") {
    test::on_both_flavors([&](const runtime_config& config) {
        {
            runtime rt(config);
            rt.block_on([]() -> task<void> {
                for (int i = 0; i < 100; ++i) {
                    auto h = spawn(sleeps_holding_tracked());
                    (void)h;
                }
                co_await test::yield_until([] { return tracked::live == 100; });
            }());
        }
        CHECK(tracked::live == 0);
    });
}

TEST_CASE("shutdown: a kept join handle sees the task cancelled") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        join_handle<void> kept;
        rt.block_on([&]() -> task<void> {
            kept = spawn(sleeps_holding_tracked());
            co_await yield_now();
        }());
        rt.shutdown();
        CHECK(kept.is_finished());
        CHECK(tracked::live == 0);
    });
}

TEST_CASE("shutdown: a task that catches the first cancellation still unwinds at the next await") {
    test::on_both_flavors([&](const runtime_config& config) {
        std::atomic<int> caught{0};
        std::atomic<bool> asleep{false};
        {
            runtime rt(config);
            rt.block_on([&]() -> task<void> {
                auto h = spawn([](std::atomic<int>& c, std::atomic<bool>& asleep) -> task<void> {
                    tracked t;
                    try {
                        asleep = true;
                        co_await sleep(std::chrono::hours(1));
                    } catch (const task_cancelled&) {
                        ++c;
                    }
                    co_await sleep(std::chrono::hours(1));  // throws task_cancelled again
                    ++c;                                    // never reached
                }(caught, asleep));
                (void)h;
                co_await test::yield_until([&] { return asleep.load(); });
            }());
        }
        CHECK(caught == 1);
        CHECK(tracked::live == 0);
    });
}

TEST_CASE("shutdown: while another thread's block_on waits - that call ends cancelled") {
    runtime_config multi_thread;
    multi_thread.flavor = "multi_thread";
    multi_thread.workers = 2;
    for (const runtime_config& config : {runtime_config{}, multi_thread}) {
        INFO(config.flavor);
        auto rt = std::make_unique<runtime>(config);
        test::manual_event never;
        std::atomic<bool> threw{false};
        std::thread caller([&] {
            try {
                rt->block_on([&]() -> task<void> {
                    co_await never.wait();  // shutdown's cancellation request wakes it
                    co_await sleep(std::chrono::hours(1));  // a cancellation point: throws
                }());
            } catch (const bad_outcome_access&) {
                threw = true;
            }
        });
        // The root has stored its waker: it is suspended, waiting.
        REQUIRE(never.wait_until_armed(std::chrono::seconds(5)));
        rt->shutdown();
        caller.join();
        CHECK(threw);
        rt.reset();
    }
}

TEST_CASE("shutdown: is idempotent and the destructor after it is fine") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        CHECK(rt.block_on(test::value_of(1)) == 1);
        rt.shutdown();
        rt.shutdown();
        CHECK_THROWS_AS(rt.block_on(test::value_of(1)), std::logic_error);
    });
}

namespace {

/// A task whose frame's destructor calls shutdown() again, run while the
/// first shutdown retires it.
void shuts_down_again_while_retiring(const runtime_config& config) {
    auto rt = std::make_unique<runtime>(config);
    std::atomic<bool> reentered{false};
    std::atomic<bool> started{false};
    struct shuts_down_again {
        runtime* r;
        std::atomic<bool>* flag;
        ~shuts_down_again() {
            r->shutdown();  // runs inside the worker's retirement
            *flag = true;
        }
    };
    rt->block_on([&]() -> task<void> {
        (void)spawn([](runtime* r, std::atomic<bool>* f, std::atomic<bool>& started) -> task<void> {
            shuts_down_again guard{r, f};
            started = true;
            co_await sleep(std::chrono::hours(1));
        }(rt.get(), &reentered, started));
        co_await test::yield_until([&] { return started.load(); });
    }());
    rt.reset();
    CHECK(reentered);
}

}  // namespace

TEST_CASE(
    "shutdown: a destructor that re-enters shutdown while the worker retires does not deadlock") {
    test::on_both_flavors(
        [](const runtime_config& config) { shuts_down_again_while_retiring(config); });
}

namespace {

/// Keeps yielding; cancellation unwinds it only when it is polled on
/// `unwinds_on` (the thread that shuts the runtime down): on a worker thread
/// it swallows it, as a task that ignores cancellation does.
task<void> yields_and_ignores_cancellation_except_on(std::atomic<std::thread::id>& unwinds_on) {
    tracked t;
    for (;;) {
        try {
            co_await yield_now();
        } catch (const task_cancelled&) {
            if (std::this_thread::get_id() == unwinds_on.load()) throw;
        }
    }
}

}  // namespace

TEST_CASE("shutdown: on multi_thread a worker with a sleeping local task and busy tasks stops") {
    // The worker thread unwinds its local tasks itself before it ends; the
    // tasks queued beside them (one yielding for ever, two ping-ponging on
    // channels, one that ignores cancellation there) must not keep that
    // unwinding, and so shutdown's join, going for ever.
    test::run_or_abort_on_deadlock("shutdown joining a worker that unwinds its local tasks", [] {
        runtime rt(test::multi_thread(1));
        std::atomic<std::thread::id> shutdown_thread{};
        std::atomic<bool> started{false};
        rt.block_on([&]() -> task<void> {
            co_await spawn([](std::atomic<std::thread::id>& unwinds_on,
                              std::atomic<bool>& started) -> task<void> {
                (void)cx::current().spawn_local([]() -> task<void> {
                    tracked t;
                    co_await sleep(std::chrono::hours(1));
                }());
                (void)spawn([]() -> task<void> {
                    tracked t;
                    for (;;)
                        co_await yield_now();
                }());
                auto [ping_tx, ping_rx] = sync::make_channel<int>(1);
                auto [pong_tx, pong_rx] = sync::make_channel<int>(1);
                (void)spawn([](sync::channel_sender<int> out,
                               sync::channel_receiver<int> in) -> task<void> {
                    tracked t;
                    // Stops when its partner is gone: a task started after
                    // shutdown began unwinds at its first poll, and a loop
                    // on closed channels would never suspend again.
                    for (int i = 0;; ++i) {
                        if (!co_await out.send(i)) co_return;
                        if (!co_await in.recv()) co_return;
                    }
                }(std::move(ping_tx), std::move(pong_rx)));
                (void)spawn([](sync::channel_receiver<int> in,
                               sync::channel_sender<int> out) -> task<void> {
                    tracked t;
                    while (auto v = co_await in.recv())
                        co_await out.send(*v);
                }(std::move(ping_rx), std::move(pong_tx)));
                (void)spawn(yields_and_ignores_cancellation_except_on(unwinds_on));
                started = true;
                co_return;
            }(shutdown_thread, started));
        }());
        REQUIRE(started);
        shutdown_thread = std::this_thread::get_id();
        rt.shutdown();
        CHECK(tracked::live == 0);
    });
}

TEST_CASE("shutdown: two threads shutting a runtime down at once both return when it is done") {
    // A watchdog and the owner may both call shutdown(). One of them does
    // the work; the other waits for it to end: never two joins of one
    // thread, never two retirements.
    test::run_or_abort_on_deadlock("two shutdown() calls at once", [] {
        for (int round = 0; round < 40; ++round) {
            runtime rt(round % 2 ? test::multi_thread(2) : runtime_config{});
            rt.block_on([]() -> task<void> {
                for (int i = 0; i < 20; ++i)
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
            CHECK_MESSAGE(live_when_returned == 0, "round " << round);
        }
    });
}

#ifdef RTKIT_CHAOS
TEST_CASE("shutdown: a second shutdown while the first joins the workers waits for it to end") {
    using detail::chaos::site;
    test::run_or_abort_on_deadlock("a second shutdown() while the first joins", [] {
        runtime rt(test::multi_thread(2));
        rt.block_on([]() -> task<void> {
            for (int i = 0; i < 20; ++i)
                (void)spawn(sleeps_holding_tracked());
            co_return;
        }());
        // The first call to reach the join is held there until the second
        // call has come as far as it gets: to the join too, or to waiting.
        std::atomic<std::thread::id> first{};
        test::signal_flag second_arrived;
        test::chaos_hook hold([&](site s) {
            const std::thread::id me = std::this_thread::get_id();
            if (s == site::shutdown_joining) {
                std::thread::id none{};
                if (first.compare_exchange_strong(none, me))
                    second_arrived.wait_for(std::chrono::seconds(10));
                else if (first.load() != me)
                    second_arrived.set();
            } else if (s == site::shutdown_waiting) {
                second_arrived.set();
            }
        });
        std::atomic<int> live_when_returned{0};
        auto shut_down = [&] {
            rt.shutdown();
            live_when_returned += tracked::live.load();
        };
        std::thread a(shut_down), b(shut_down);
        a.join();
        b.join();
        CHECK(second_arrived.is_set());
        CHECK(live_when_returned == 0);
    });
}
#endif
