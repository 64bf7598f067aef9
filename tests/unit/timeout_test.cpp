// Timeouts (cx::timeout), on both flavors; and where the timer and the task
// are on different threads: a multi_thread root is polled by its caller while
// its timer fires on a worker, and a stolen task runs on another worker than
// its timer.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "rtkit/detail/engaged_optional.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("timeout: an operation that finishes in time yields its value") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        auto v = rt.block_on([]() -> task<std::optional<int>> {
            co_return co_await timeout(1s, []() -> task<int> {
                co_await sleep(1ms);
                co_return 4;
            }());
        }());
        CHECK(v == 4);
    });
}

TEST_CASE("timeout: a slow operation is cancelled and unwinds - the task goes on") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        bool unwound = false;
        rt.block_on([&]() -> task<void> {
            instant start = now();
            auto v = co_await timeout(10ms, [](bool& u) -> task<int> {
                struct mark {
                    bool& flag;
                    ~mark() { flag = true; }
                } guard{u};
                co_await sleep(std::chrono::hours(1));
                co_return 1;
            }(unwound));
            CHECK_FALSE(v.has_value());
            CHECK(unwound);
            CHECK(now() - start >= 10ms);
            // The task is not left interrupted: it can sleep again.
            co_await sleep(1ms);
        }());
    });
}

TEST_CASE("timeout: nested - the inner deadline fires first and the outer one still holds") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto outer = co_await timeout(1s, []() -> task<int> {
                auto inner = co_await timeout(5ms, []() -> task<int> {
                    co_await sleep(std::chrono::hours(1));
                    co_return 1;
                }());
                CHECK_FALSE(inner.has_value());
                co_await sleep(1ms);
                co_return 2;
            }());
            CHECK(outer == 2);
            auto outer_fires = co_await timeout(5ms, []() -> task<int> {
                auto inner = co_await timeout(1s, []() -> task<int> {
                    co_await sleep(std::chrono::hours(1));
                    co_return 1;
                }());
                co_return inner.value_or(-1);
            }());
            CHECK_FALSE(outer_fires.has_value());
        }());
    });
}

TEST_CASE("timeout: a real cancellation is not mistaken for the deadline") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto h = spawn([]() -> task<int> {
                auto v = co_await timeout(1s, []() -> task<int> {
                    co_await sleep(std::chrono::hours(1));
                    co_return 1;
                }());
                co_return v.value_or(-1);
            }());
            co_await yield_now();
            h.cancel();
            CHECK((co_await std::move(h)).is_cancelled());
        }());
    });
}

TEST_CASE("timeout: void operations report whether they completed") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            CHECK(co_await timeout(1s, []() -> task<void> { co_return; }()));
            CHECK_FALSE(co_await timeout(1ms, []() -> task<void> { co_await sleep(1s); }()));
        }());
    });
}

TEST_CASE("timeout: on multi_thread a root's deadline fires on a worker and the root goes on") {
    // The root is polled on this thread; its timer is armed by worker 0.
    runtime rt(test::multi_thread(2));
    const bool clean_after = rt.block_on([]() -> task<bool> {
        const std::optional<int> late = co_await timeout(5ms, []() -> task<int> {
            co_await sleep(std::chrono::hours(1));
            co_return 1;
        }());
        CHECK_FALSE(late.has_value());
        const std::optional<int> in_time = co_await timeout(10s, []() -> task<int> {
            co_await sleep(1ms);
            co_return 2;
        }());
        CHECK(in_time == 2);
        co_await yield_now();  // no deadline is in force any more
        co_await sleep(1ms);
        co_return true;
    }());
    CHECK(clean_after);
}

TEST_CASE("timeout: on multi_thread deadlines of tasks on every worker fire - the tasks go on") {
    // Tasks spread over the workers (and may be stolen after their timers
    // were armed, so a timer fires on another thread than its task's).
    runtime rt(test::multi_thread(2));
    const int timed_out = rt.block_on([]() -> task<int> {
        std::vector<join_handle<bool>> hs;
        for (int i = 0; i < 64; ++i)
            hs.push_back(spawn([](int i) -> task<bool> {
                const bool slow = i % 2 == 0;
                const std::optional<int> r = co_await timeout(2ms, [](bool slow) -> task<int> {
                    co_await sleep(slow ? std::chrono::hours(1) : 0ms);
                    co_return 1;
                }(slow));
                co_await yield_now();  // after the scope: never "timed out"
                co_return !r.has_value();
            }(i)));
        int count = 0;
        for (auto& h : hs)
            count += (co_await std::move(h)).value() ? 1 : 0;
        co_return count;
    }());
    CHECK(timed_out == 32);
}

TEST_CASE("timeout: on multi_thread scopes closing as their timers fire leave no deadline behind") {
    // The operation ends at about its deadline, so the timer often fires on
    // the worker while the root closes the scope on this thread. Whichever
    // wins, the await after the scope must not throw "timed out".
    runtime rt(test::multi_thread(1));
    const int rounds = rt.block_on([]() -> task<int> {
        int done = 0;
        for (; done < 200; ++done) {
            (void)co_await timeout(1ms, []() -> task<void> { co_await sleep(1ms); }());
            co_await yield_now();
        }
        co_return done;
    }());
    CHECK(rounds == 200);
}

#ifdef RTKIT_CHAOS
TEST_CASE("timeout: a deadline that fires while its scope closes never interrupts the task later") {
    // The root is polled on this thread; its timer fires on the worker. The
    // fire is held after it decided that the scope is still open, while the
    // scope closes (its operation finished in time). The late fire must then
    // leave the task alone: if it marked the task timed out, nothing would
    // clear the mark and every later await would throw "timed out".
    using detail::chaos::site;
    runtime rt(test::multi_thread(1));
    test::manual_event done_in_time;
    test::signal_flag firing, scope_closed, fire_over;
    std::atomic<std::thread::id> timer_thread{};
    test::chaos_hook hold([&](site s) {
        if (s == site::timeout_firing && !firing.is_set()) {
            timer_thread = std::this_thread::get_id();
            firing.set();
            done_in_time.fire();  // the operation ends: the root closes the scope
            scope_closed.wait_for(10s);
        } else if ((s == site::lanes_popping || s == site::parking) && scope_closed.is_set() &&
                   timer_thread.load() == std::this_thread::get_id()) {
            fire_over.set();  // the worker is back in its loop: the fire has done all it does
        }
    });
    const int value = rt.block_on([&]() -> task<int> {
        const std::optional<int> v = co_await timeout(1ms, [](test::manual_event& e) -> task<int> {
            co_await e.wait();
            co_return 5;
        }(done_in_time));
        scope_closed.set();
        REQUIRE(firing.is_set());
        REQUIRE(fire_over.wait_for(10s));
        co_await yield_now();  // an await after the scope: must not throw "timed out"
        co_await sleep(1ms);
        co_return v.value_or(-1);
    }());
    CHECK(value == 5);
}
#endif

TEST_CASE("timeout: a 64-bit result built from words is the optional its constructor makes") {
    // engaged_optional assumes the standard library's layout (the value,
    // then the flag) for the types it builds from words.
    static_assert(detail::optional_of_two_words<std::int64_t> ==
                  (std::endian::native == std::endian::little));
    for (const std::int64_t v :
         {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1},
          std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
        const std::optional<std::int64_t> built = detail::engaged_optional(v);
        REQUIRE(built.has_value());
        CHECK(*built == v);
        CHECK(built == std::optional<std::int64_t>(v));
    }
    const std::optional<std::uint64_t> unsigned_built = detail::engaged_optional(~std::uint64_t{0});
    CHECK(unsigned_built == std::optional<std::uint64_t>(~std::uint64_t{0}));
}

TEST_CASE("timeout: a 64-bit result comes out of the scope whole") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        const std::int64_t got = rt.block_on([]() -> task<std::int64_t> {
            std::int64_t sum = 0;
            for (std::int64_t i = -3; i < 3; ++i) {
                const std::optional<std::int64_t> at_once = co_await timeout(
                    10s, [](std::int64_t v) -> task<std::int64_t> { co_return v; }(i));
                const std::optional<std::int64_t> later =
                    co_await timeout(10s, [](std::int64_t v) -> task<std::int64_t> {
                        co_await yield_now();
                        co_return v * 1'000'000'000'000;
                    }(i));
                REQUIRE(at_once.has_value());
                REQUIRE(later.has_value());
                sum += *at_once + *later;
            }
            co_return sum;
        }());
        CHECK(got == -3 * 1'000'000'000'001);
    });
}
