// A duration too long for the clock is "never", not "now": sleep, timeout and
// a reactor wait saturate where now() + d would overflow (undefined behaviour,
// which the asan preset's UBSan turns into a failure).
#include <doctest/doctest.h>

#include <chrono>
#include <limits>

#include "rtkit/detail/io_driver.hpp"
#include "rtkit/plugin_loader.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

constexpr duration longest = duration::max();
/// What `rtctl run` computes for `sleep 9223372036s`.
constexpr duration script_sleep = std::chrono::seconds(9223372036);

/// Spawns a task that sleeps `d`, lets the worker fire everything due for a
/// while, and reports whether the sleeper woke; then cancels it.
bool sleeper_wakes(const runtime_config& config, duration d) {
    runtime rt(config);
    return rt.block_on([d]() -> task<bool> {
        auto sleeper = spawn([](duration d) -> task<void> { co_await sleep(d); }(d));
        // A real sleep: the worker parks on its timers and fires what is due.
        co_await sleep(20ms);
        const bool woke = sleeper.is_finished();
        sleeper.cancel();
        co_await std::move(sleeper);
        co_return woke;
    }());
}

}  // namespace

TEST_CASE("far deadline: a sleep longer than the clock can count never wakes") {
    test::on_both_flavors([](const runtime_config& config) {
        CHECK_FALSE(sleeper_wakes(config, longest));
        CHECK_FALSE(sleeper_wakes(config, script_sleep));
        CHECK_FALSE(sleeper_wakes(config, longest - 1s));
    });
}

TEST_CASE("far deadline: a timeout longer than the clock can count never fires") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        const std::optional<int> got = rt.block_on([]() -> task<std::optional<int>> {
            co_return co_await timeout(longest, []() -> task<int> {
                co_await sleep(20ms);
                co_return 4;
            }());
        }());
        REQUIRE(got.has_value());
        CHECK(*got == 4);
    });
}

TEST_CASE("far deadline: saturating_add clamps at both ends of the clock") {
    const instant start = instant{} + 5s;
    CHECK(saturating_add(start, longest) == instant::max());
    CHECK(saturating_add(start, duration::min()) == instant{} + 5s + duration::min() + 0s);
    CHECK(saturating_add(instant::min() + 1s, duration::min()) == instant::min());
    CHECK(saturating_add(start, 3s) == instant{} + 8s);
}

TEST_CASE("far deadline: every built-in reactor waits the longest timeout and still wakes") {
    plugin_loader loader;
    for (const char* name : {"epoll", "uring"}) {
        INFO("reactor: " << name);
        detail::io_driver io(loader.create_by_name<reactor>(name), name);
        io.wake();  // so the wait ends at once
        CHECK(io.poll(longest) == 0);
    }
}
