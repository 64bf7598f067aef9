#include <doctest/doctest.h>

#include <thread>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("cancel: request - drain through cleanup - finalize as cancelled(reason)") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<bool> started{false};
        std::atomic<bool> cleaned_up{false};
        rt.block_on([&]() -> task<void> {
            auto h = spawn([](std::atomic<bool>& started, std::atomic<bool>& cleaned) -> task<int> {
                struct cleanup {
                    std::atomic<bool>& flag;
                    ~cleanup() { flag = true; }
                } guard{cleaned};
                started = true;
                co_await sleep(std::chrono::hours(1));
                co_return 1;
            }(started, cleaned_up));
            co_await test::yield_until([&] { return started.load(); });
            h.cancel(cancel_reason{"not needed"});
            outcome<int> o = co_await std::move(h);
            REQUIRE(o.is_cancelled());
            CHECK(o.reason().message == "not needed");
            CHECK(cleaned_up);
        }());
    });
}

TEST_CASE("cancel: a CPU loop observes it at checkpoint()") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<long> iterations{0};
        rt.block_on([&]() -> task<void> {
            auto h = spawn([&iterations](cx c) -> task<void> {
                for (;;) {
                    c.checkpoint();
                    if (++iterations % 1000 == 0) co_await c.yield_now();
                }
            });
            while (iterations < 5000)
                co_await yield_now();
            h.cancel();
            auto o = co_await std::move(h);
            CHECK(o.is_cancelled());
        }());
    });
}

TEST_CASE("cancel: from another thread") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto h = spawn([]() -> task<void> { co_await sleep(std::chrono::hours(1)); }());
            co_await yield_now();
            // The other thread is done with the handle before this task consumes it.
            std::thread([&] { h.cancel(cancel_reason{"from afar"}); }).join();
            auto o = co_await std::move(h);
            REQUIRE(o.is_cancelled());
            CHECK(o.reason().message == "from afar");
        }());
    });
}

TEST_CASE("cancel: cancelling a finished task changes nothing") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto h = spawn(test::value_of(3));
            while (!h.is_finished())
                co_await yield_now();
            h.cancel();
            CHECK((co_await std::move(h)).value() == 3);
        }());
    });
}

TEST_CASE("cancel: a cancelled joiner unwinds out of its join - the joined task goes on") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([&]() -> task<void> {
            auto slow = spawn([]() -> task<int> {
                co_await sleep(10ms);
                co_return 8;
            }());
            auto* slow_record = slow.record();
            (void)slow_record;
            auto joiner = spawn([](join_handle<int> h) -> task<int> {
                co_return (co_await std::move(h)).value();
            }(std::move(slow)));
            co_await yield_now();
            joiner.cancel();
            CHECK((co_await std::move(joiner)).is_cancelled());
        }());
    });
}

TEST_CASE(
    "cancel: a task cancelled before its first poll does not start - its outcome is cancelled") {
    runtime rt;
    bool body_ran = false;
    const outcome<int> result = rt.block_on([&]() -> task<outcome<int>> {
        auto h = spawn([](bool& ran) -> task<int> {
            ran = true;  // a side effect before any await
            co_return 1;
        }(body_ran));
        h.cancel(cancel_reason{"changed my mind"});
        co_return co_await std::move(h);
    }());
    CHECK_FALSE(body_ran);
    REQUIRE(result.is_cancelled());
    CHECK(result.reason().message == "changed my mind");
}

namespace {

task<int> sleep_an_hour(std::atomic<bool>& started) {
    started = true;
    co_await sleep(std::chrono::hours(1));
    co_return 1;
}

/// Awaits its sleeper through an inline task and a region, so that the
/// cancellation unwinds through several frames on its way out.
task<int> nested_sleeper(std::atomic<bool>& started) {
    co_return co_await cx::current().region(
        [&](cx) -> task<int> { co_return co_await sleep_an_hour(started); });
}

struct shutting_down : task_cancelled {
    shutting_down() : task_cancelled(cancel_reason{"shutting down"}) {}
};

task<int> throws_derived_cancellation() {
    co_await yield_now();
    throw shutting_down();
}

}  // namespace

TEST_CASE("cancel: the reason comes out of inline frames and a region unchanged") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<bool> started{false};
        const outcome<int> o = rt.block_on([](std::atomic<bool>& started) -> task<outcome<int>> {
            auto h = spawn(nested_sleeper(started));
            co_await test::yield_until([&] { return started.load(); });
            h.cancel(cancel_reason{"deep"});
            co_return co_await std::move(h);
        }(started));
        REQUIRE(o.is_cancelled());
        CHECK(o.reason().message == "deep");
    });
}

TEST_CASE("cancel: a task that throws a class derived from task_cancelled ends cancelled") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        const outcome<int> o = rt.block_on([]() -> task<outcome<int>> {
            co_return co_await spawn(throws_derived_cancellation());
        }());
        REQUIRE(o.is_cancelled());
        CHECK(o.reason().message == "shutting down");
    });
}
