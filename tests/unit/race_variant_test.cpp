// race over tasks of different result types: the winner's outcome in the
// variant alternative of its position.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <variant>

#include "../support/recorded_diagnostics.hpp"
#include "rtkit/combinators.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

task<int> never(std::atomic<int>& unwound, test::arrivals* started = nullptr) {
    test::unwind_mark mark{unwound};
    if (started) started->arrive();
    co_await sleep(std::chrono::hours(1));
    co_return 0;
}
task<std::string> text_after(duration d, std::string text) {
    co_await sleep(d);
    co_return text;
}
task<void> waits_on(test::manual_event& event) {
    co_await event.wait();
}

}  // namespace

TEST_CASE(
    "race of different types: the winner's outcome at its position - the loser unwound first") {
    for (const runtime_config& config : test::both_flavors()) {
        INFO("flavor: " << config.flavor);
        runtime rt(config);
        std::atomic<int> unwound{0};
        auto result = rt.block_on([&]() -> task<std::variant<outcome<int>, outcome<std::string>>> {
            co_return co_await race(never(unwound), text_after(1ms, "text"));
        }());
        REQUIRE(result.index() == 1);
        CHECK(std::get<1>(result).value() == "text");
        CHECK(unwound == 1);  // before race returned
    }
}

TEST_CASE("race of different types: a task of void can win") {
    runtime rt;
    std::atomic<int> unwound{0};
    test::manual_event event;
    event.fire();
    auto result = rt.block_on([&]() -> task<std::variant<outcome<int>, outcome<void>>> {
        co_return co_await race(never(unwound), waits_on(event));
    }());
    REQUIRE(result.index() == 1);
    CHECK(std::get<1>(result).is_ok());
    CHECK(unwound == 1);
}

TEST_CASE("race of different types: the index tells which won when the types repeat") {
    runtime rt;
    auto result = rt.block_on(
        []() -> task<
                 std::variant<outcome<std::string>, outcome<std::string>, outcome<std::string>>> {
            co_return co_await race(text_after(1h, "a"), text_after(0ms, "b"), text_after(1h, "c"));
        }());
    REQUIRE(result.index() == 1);
    CHECK(std::get<1>(result).value() == "b");
}

TEST_CASE(
    "race of different types: a winner that failed gives its failure - losers are not reported") {
    test::recorded_diagnostics diagnostics;
    runtime rt;
    auto result = rt.block_on([]() -> task<std::variant<outcome<std::string>, outcome<int>>> {
        co_return co_await race(
            []() -> task<std::string> {
                try {
                    co_await sleep(std::chrono::hours(1));
                } catch (const task_cancelled&) {
                    throw std::runtime_error("failed as it lost");
                }
                co_return "never";
            }(),
            []() -> task<int> {
                co_await yield_now();
                throw std::runtime_error("winner failed");
            }());
    }());
    REQUIRE(result.index() == 1);
    CHECK(std::get<1>(result).is_panicked());
    rt.shutdown();
    CHECK(diagnostics.count() == 0);
}

TEST_CASE("race of different types: cancelling the racer cancels and drains every contender") {
    for (const runtime_config& config : test::both_flavors()) {
        INFO("flavor: " << config.flavor);
        runtime rt(config);
        std::atomic<int> unwound{0};
        rt.block_on([&]() -> task<void> {
            test::arrivals started;
            auto racer = spawn([](std::atomic<int>& n, test::arrivals& started) -> task<int> {
                auto r = co_await race(never(n, &started), text_after(1h, "x"), never(n, &started));
                co_return static_cast<int>(r.index());
            }(unwound, started));
            co_await started.wait_for(2);
            racer.cancel();
            CHECK((co_await std::move(racer)).is_cancelled());
            CHECK(unwound == 2);
        }());
    }
}
