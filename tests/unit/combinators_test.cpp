#include <doctest/doctest.h>

#include <stdexcept>

#include "rtkit/combinators.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {
task<int> after(std::chrono::milliseconds d, int v) {
    co_await sleep(d);
    co_return v;
}
task<int> fails_after(std::chrono::milliseconds d) {
    co_await sleep(d);
    throw std::runtime_error("failed");
}
/// Sleeps an hour (returning 1 if it ever wakes); counts into `unwound`
/// when its frame unwinds.
task<int> sleeps_an_hour_counting_unwind(std::atomic<int>& unwound) {
    struct mark {
        std::atomic<int>& n;
        ~mark() { ++n; }
    } guard{unwound};
    co_await sleep(std::chrono::hours(1));
    co_return 1;
}
}  // namespace

TEST_CASE("join_all: every value in order when all are ok") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        auto o = rt.block_on([]() -> task<outcome<std::vector<int>>> {
            std::vector<task<int>> ts;
            ts.push_back(after(6ms, 1));
            ts.push_back(after(2ms, 2));
            ts.push_back(after(4ms, 3));
            co_return co_await join_all(std::move(ts));
        }());
        CHECK(o.value() == std::vector<int>{1, 2, 3});
    });
}

TEST_CASE("join_all: the most severe outcome wins (panicked over ok)") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        auto o = rt.block_on([]() -> task<outcome<std::vector<int>>> {
            std::vector<task<int>> ts;
            ts.push_back(after(1ms, 1));
            ts.push_back(fails_after(2ms));
            co_return co_await join_all(std::move(ts));
        }());
        CHECK(o.is_panicked());
    });
}

TEST_CASE(
    "race: the first to finish wins - the losers are cancelled and drained before it returns") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> loser_unwound{0};
        rt.block_on([&]() -> task<void> {
            std::vector<task<int>> ts;
            ts.push_back(sleeps_an_hour_counting_unwind(loser_unwound));
            ts.push_back(after(3ms, 2));
            auto o = co_await race(std::move(ts));
            CHECK(o.value() == 2);
            CHECK(loser_unwound == 1);
        }());
    });
}

TEST_CASE("race: cancelling the racer cancels and drains every contender") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> unwound{0};
        rt.block_on([&]() -> task<void> {
            auto racer = spawn([](std::atomic<int>& n) -> task<int> {
                std::vector<task<int>> ts;
                for (int i = 0; i < 3; ++i)
                    ts.push_back(sleeps_an_hour_counting_unwind(n));
                co_return (co_await race(std::move(ts))).value();
            }(unwound));
            co_await sleep(2ms);
            racer.cancel();
            CHECK((co_await std::move(racer)).is_cancelled());
            CHECK(unwound == 3);
        }());
    });
}

TEST_CASE("join_all: tasks of void - ok when all are ok - the most severe outcome otherwise") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> finished{0};
        const outcome<void> all_ok = rt.block_on([&]() -> task<outcome<void>> {
            std::vector<task<void>> ts;
            for (int i = 1; i <= 3; ++i)
                ts.push_back([](std::atomic<int>& done, int ms) -> task<void> {
                    co_await sleep(std::chrono::milliseconds(ms));
                    ++done;
                }(finished, i));
            co_return co_await join_all(std::move(ts));
        }());
        CHECK(all_ok.is_ok());
        CHECK(finished == 3);

        const outcome<void> one_failed = rt.block_on([]() -> task<outcome<void>> {
            std::vector<task<void>> ts;
            ts.push_back([]() -> task<void> { co_await sleep(1ms); }());
            ts.push_back([]() -> task<void> {
                co_await sleep(2ms);
                throw std::runtime_error("failed");
            }());
            co_return co_await join_all(std::move(ts));
        }());
        CHECK(one_failed.is_panicked());
    });
}
