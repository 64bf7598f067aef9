// Blocking calls on the runtime's pool: real threads, their number and
// keep-alive, cancellation that drops the result, and shutdown with calls
// still running.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "../support/recorded_diagnostics.hpp"
#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// A gate pool threads wait at until the test opens it.
class gate {
  public:
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        changed_.notify_all();
    }
    void pass() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return open_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool open_ = false;
};

/// How many threads of the process are blocking pool threads (by name).
int pool_threads() {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(entry.path() / "comm");
        std::string name;
        if (std::getline(comm, name) && name == "rtkit-blocking") ++n;
    }
    return n;
}

/// Waits (bounded, 10 s) until `done()` holds; returns whether it did.
template <class F>
bool eventually(F done) {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::yield();
    }
    return true;
}

/// Counts its destructions and the thread of the last one.
struct tracked_result {
    std::atomic<int>* destroyed;
    std::atomic<std::thread::id>* destroyed_on;
    tracked_result(std::atomic<int>& d, std::atomic<std::thread::id>& on)
        : destroyed(&d), destroyed_on(&on) {}
    tracked_result(tracked_result&& other) noexcept
        : destroyed(std::exchange(other.destroyed, nullptr)), destroyed_on(other.destroyed_on) {}
    tracked_result& operator=(tracked_result&&) = delete;
    ~tracked_result() {
        if (!destroyed) return;
        destroyed_on->store(std::this_thread::get_id());
        destroyed->fetch_add(1);
    }
};

runtime_config with_pool(const net_test::setup& setup, int max_threads,
                         std::chrono::milliseconds keep_alive = 10s) {
    runtime_config c = net_test::config_for(setup);
    c.blocking.max_threads = max_threads;
    c.blocking.keep_alive = keep_alive;
    return c;
}

}  // namespace

TEST_CASE("blocking: run_blocking gives the value - computed on a thread of the pool") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            const std::thread::id here = std::this_thread::get_id();
            const std::thread::id there =
                co_await run_blocking([] { return std::this_thread::get_id(); });
            CHECK(there != here);
            CHECK(co_await run_blocking([] { return 6 * 7; }) == 42);
            bool ran = false;
            co_await run_blocking([&ran] { ran = true; });
            CHECK(ran);
            // What a call captures by value, the pool thread has (named first:
            // see run_blocking on GCC 12).
            const std::string name = "short";
            auto measure = [name] { return name.size(); };
            CHECK(co_await run_blocking(std::move(measure)) == 5);
            // What the function throws, the awaiting task gets.
            CHECK_THROWS_WITH_AS(
                co_await run_blocking([]() -> int { throw std::runtime_error("disk on fire"); }),
                "disk on fire", std::runtime_error);
        }());
    }
}

TEST_CASE("blocking: spawn_blocking starts the call before anyone awaits its handle") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto [started_tx, started_rx] = sync::make_oneshot<int>();
            auto call = spawn_blocking([tx = std::move(started_tx)]() mutable {
                tx.send(1);  // wakes the root from the pool thread
                return std::string("done");
            });
            CHECK(co_await started_rx == 1);
            outcome<std::string> result = co_await std::move(call);
            CHECK(std::move(result).value() == "done");
        }());
    }
}

TEST_CASE("blocking: at most max_threads calls run at once - the rest wait in line") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        REQUIRE(eventually([] { return pool_threads() == 0; }));  // earlier runtimes' are gone
        runtime rt(with_pool(setup, 2));
        rt.block_on([]() -> task<void> {
            gate release;
            std::atomic<int> running{0}, most{0}, finished{0};
            std::vector<join_handle<void>> calls;
            for (int i = 0; i < 5; ++i)
                calls.push_back(spawn_blocking([&] {
                    const int now = ++running;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    release.pass();
                    --running;
                    ++finished;
                }));
            // The spawned tasks submit their calls once this root lets them run.
            while (running < 2)
                co_await yield_now();
            CHECK(pool_threads() == 2);
            CHECK(finished == 0);
            release.open();
            for (auto& call : calls)
                CHECK((co_await std::move(call)).is_ok());
            CHECK(finished == 5);
            CHECK(most == 2);
            CHECK(pool_threads() == 2);  // kept alive, and no more
        }());
    }
}

TEST_CASE("blocking: an idle thread is reused - and ends after the keep-alive") {
    const net_test::setup setup{"epoll"};
    for (const auto keep_alive : {std::chrono::milliseconds(10s), std::chrono::milliseconds(1)}) {
        INFO(keep_alive.count());
        REQUIRE(eventually([] { return pool_threads() == 0; }));  // earlier runtimes' are gone
        runtime rt(with_pool(setup, 4, keep_alive));
        rt.block_on([&]() -> task<void> {
            const auto first = co_await run_blocking([] { return std::this_thread::get_id(); });
            if (keep_alive > 1s) {
                CHECK(pool_threads() == 1);
                const auto second =
                    co_await run_blocking([] { return std::this_thread::get_id(); });
                CHECK(second == first);
            }
        }());
        if (keep_alive < 1s)
            CHECK(eventually([&] { return pool_threads() == 0; }));
        else
            CHECK(pool_threads() == 1);
    }
}

TEST_CASE(
    "blocking: a cancelled caller stops waiting at once - the result is dropped on the pool") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        gate release;
        std::atomic<bool> started{false};
        std::atomic<int> destroyed{0};
        std::atomic<std::thread::id> destroyed_on{}, ran_on{};
        rt.block_on([&]() -> task<void> {
            auto caller = spawn([&](cx) -> task<void> {
                tracked_result r = co_await run_blocking([&] {
                    ran_on = std::this_thread::get_id();
                    started = true;
                    release.pass();
                    return tracked_result(destroyed, destroyed_on);
                });
                FAIL("the cancelled caller got the result");
            });
            while (!started)
                co_await yield_now();
            caller.cancel();
            // The call still blocks: the caller's end does not wait for it.
            CHECK((co_await std::move(caller)).is_cancelled());
            CHECK(destroyed == 0);
        }());
        release.open();
        CHECK(eventually([&] { return destroyed == 1; }));
        CHECK(destroyed_on.load() == ran_on.load());
    }
}

TEST_CASE("blocking: a call still in line when its caller is cancelled never runs") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(with_pool(setup, 1));
        rt.block_on([]() -> task<void> {
            gate release;
            std::atomic<bool> first_started{false}, second_ran{false};
            auto first = spawn_blocking([&] {
                first_started = true;
                release.pass();
            });
            while (!first_started)
                co_await yield_now();
            auto second = spawn_blocking([&] { second_ran = true; });
            co_await yield_now();  // current_thread: its call is now in line
            second.cancel();
            CHECK((co_await std::move(second)).is_cancelled());
            release.open();
            CHECK((co_await std::move(first)).is_ok());
            // The one thread has passed the second call's place in line.
            CHECK(co_await run_blocking([] { return 3; }) == 3);
            CHECK(!second_ran);
        }());
    }
}

TEST_CASE("blocking: shutdown_timeout waits for a call that ends within its bound") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        gate release;
        std::atomic<bool> started{false}, shutting_down{false};
        std::atomic<int> got{0};
        rt.block_on([&]() -> task<void> {
            auto caller = spawn([&](cx) -> task<void> {
                got = co_await run_blocking([&] {
                    started = true;
                    release.pass();
                    return 5;
                });
            });
            while (!started)
                co_await yield_now();
        }());
        std::thread opener([&] {
            while (!shutting_down)
                std::this_thread::yield();
            release.open();
        });
        shutting_down = true;
        const shutdown_report report = rt.shutdown_timeout(60s);
        opener.join();
        CHECK(got == 5);
        CHECK(report.cancelled == 0);
        CHECK(report.blocking_left == 0);
    }
}

TEST_CASE("blocking: shutdown_timeout waits for a call whose caller is gone - within its bound") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        gate release;
        std::atomic<bool> started{false}, shutting_down{false};
        std::atomic<int> destroyed{0};
        std::atomic<std::thread::id> destroyed_on{};
        rt.block_on([&]() -> task<void> {
            auto caller = spawn([&](cx) -> task<void> {
                co_await run_blocking([&] {
                    started = true;
                    release.pass();
                    return tracked_result(destroyed, destroyed_on);
                });
            });
            while (!started)
                co_await yield_now();
            caller.cancel();
            CHECK((co_await std::move(caller)).is_cancelled());
        }());
        std::thread opener([&] {
            while (!shutting_down)
                std::this_thread::yield();
            release.open();
        });
        shutting_down = true;
        const shutdown_report report = rt.shutdown_timeout(60s);
        opener.join();
        CHECK(destroyed == 1);  // the call ended, and its result went, before the return
        CHECK(report.blocking_left == 0);
    }
}

TEST_CASE("blocking: a call still running at shutdown_timeout's bound is left to end on its own") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        test::recorded_diagnostics diagnostics;
        gate release;
        std::atomic<bool> started{false};
        std::atomic<int> destroyed{0};
        std::atomic<std::thread::id> destroyed_on{}, ran_on{};
        {
            runtime rt(net_test::config_for(setup));
            rt.block_on([&]() -> task<void> {
                auto caller = spawn([&](cx) -> task<void> {
                    co_await run_blocking([&] {
                        ran_on = std::this_thread::get_id();
                        started = true;
                        release.pass();
                        return tracked_result(destroyed, destroyed_on);
                    });
                });
                while (!started)
                    co_await yield_now();
            }());
            const shutdown_report report = rt.shutdown_timeout(20ms);
            CHECK(report.cancelled == 1);
            CHECK(report.blocking_left == 1);
            bool said_so = false;
            for (const diagnostic& d : diagnostics.seen())
                said_so |= d.kind == diagnostic_kind::blocking_calls_left;
            CHECK(said_so);
        }
        // The runtime is gone; the call goes on, then its result is dropped
        // on its thread, which ends.
        CHECK(destroyed == 0);
        release.open();
        CHECK(eventually([&] { return destroyed == 1; }));
        CHECK(destroyed_on.load() == ran_on.load());
        CHECK(eventually([] { return pool_threads() == 0; }));  // its thread ended too
    }
}

TEST_CASE("blocking: a call whose result came before shutdown is not reported as left running") {
    // The pool thread may still be waking the task, or letting go of the
    // call, when the task has its result and the runtime shuts down: the
    // call is over, and shutdown must not count it as one left running.
    test::recorded_diagnostics diagnostics;
    for (const bool multi : {false, true}) {
        for (int round = 0; round < 300; ++round) {
            runtime_config config;
            if (multi) {
                config.flavor = "multi_thread";
                config.workers = 2;
            }
            runtime rt(config);
            CHECK(rt.block_on([]() -> task<int> {
                co_return co_await run_blocking([] { return 1; });
            }()) == 1);
            rt.shutdown();
            REQUIRE(diagnostics.count() == 0);
        }
    }
}

TEST_CASE("blocking: shutdown does not wait for a call that never returns") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        test::recorded_diagnostics diagnostics;
        gate never;  // opened only after the runtime is gone
        std::atomic<bool> started{false}, left{false};
        {
            runtime rt(net_test::config_for(setup));
            rt.block_on([&]() -> task<void> {
                auto call = spawn_blocking([&] {
                    started = true;
                    never.pass();
                    left = true;  // the last it touches of this test's frame
                });
                while (!started)
                    co_await yield_now();
            }());
            rt.shutdown();
            CHECK(diagnostics.count() == 1);
            CHECK(diagnostics.seen().at(0).kind == diagnostic_kind::blocking_calls_left);
        }
        never.open();
        CHECK(eventually([&] { return left.load(); }));
    }
}

TEST_CASE("blocking: a pool of no threads is refused when the runtime is built") {
    CHECK_THROWS_WITH_AS(runtime(with_pool({"epoll"}, 0)),
                         doctest::Contains("blocking.max_threads = 0"), std::invalid_argument);
}
