#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("sleep: wakes no earlier than its deadline") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        auto elapsed = rt.block_on([]() -> task<duration> {
            instant start = now();
            co_await sleep(20ms);
            co_return now() - start;
        }());
        CHECK(elapsed >= 20ms);
    });
}

TEST_CASE("sleep: tasks interleave by deadline") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        test::locked_log<int> order;
        rt.block_on([&]() -> task<void> {
            // Absolute deadlines: a late wake-up of b must not push its second
            // deadline past a's.
            const instant start = now();
            auto a = spawn([](test::locked_log<int>& o, instant t0) -> task<void> {
                co_await cx::current().sleep_until(t0 + 30ms);
                o.add(3);
            }(order, start));
            auto b = spawn([](test::locked_log<int>& o, instant t0) -> task<void> {
                co_await cx::current().sleep_until(t0 + 10ms);
                o.add(1);
                co_await cx::current().sleep_until(t0 + 20ms);
                o.add(2);
            }(order, start));
            co_await std::move(a);
            co_await std::move(b);
        }());
        CHECK(order.entries() == std::vector<int>{1, 2, 3});
    });
}

TEST_CASE("sleep: a zero or past deadline completes at once") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([]() -> task<void> {
            co_await sleep(0ms);
            co_await sleep(-5ms);
        }());
    });
}

TEST_CASE("sleep: a timer that is no longer awaited does not wake anything") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        // The sleeping task is destroyed by shutdown long before its deadline.
        rt.block_on([]() -> task<void> {
            auto h = spawn([]() -> task<void> { co_await sleep(std::chrono::hours(1)); }());
            co_await yield_now();
            (void)h;
        }());
        rt.shutdown();
    });
}
