#include <doctest/doctest.h>

#include <thread>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("cancel: request - drain through cleanup - finalize as cancelled(reason)") {
    runtime rt;
    bool cleaned_up = false;
    rt.block_on([&]() -> task<void> {
        auto h = spawn([](bool& cleaned) -> task<int> {
            struct cleanup {
                bool& flag;
                ~cleanup() { flag = true; }
            } guard{cleaned};
            co_await sleep(std::chrono::hours(1));
            co_return 1;
        }(cleaned_up));
        co_await yield_now();
        h.cancel(cancel_reason{"not needed"});
        outcome<int> o = co_await std::move(h);
        REQUIRE(o.is_cancelled());
        CHECK(o.reason().message == "not needed");
        CHECK(cleaned_up);
    }());
}

TEST_CASE("cancel: a CPU loop observes it at checkpoint()") {
    runtime rt;
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
}

TEST_CASE("cancel: from another thread") {
    runtime rt;
    rt.block_on([&]() -> task<void> {
        auto h = spawn([]() -> task<void> { co_await sleep(std::chrono::hours(1)); }());
        co_await yield_now();
        // The other thread is done with the handle before this task consumes it.
        std::thread([&] { h.cancel(cancel_reason{"from afar"}); }).join();
        auto o = co_await std::move(h);
        REQUIRE(o.is_cancelled());
        CHECK(o.reason().message == "from afar");
    }());
}

TEST_CASE("cancel: cancelling a finished task changes nothing") {
    runtime rt;
    rt.block_on([&]() -> task<void> {
        auto h = spawn(test::value_of(3));
        while (!h.is_finished())
            co_await yield_now();
        h.cancel();
        CHECK((co_await std::move(h)).value() == 3);
    }());
}

TEST_CASE("cancel: a cancelled joiner unwinds out of its join - the joined task goes on") {
    runtime rt;
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
}

TEST_CASE("timeout: an operation that finishes in time yields its value") {
    runtime rt;
    auto v = rt.block_on([]() -> task<std::optional<int>> {
        co_return co_await timeout(1s, []() -> task<int> {
            co_await sleep(1ms);
            co_return 4;
        }());
    }());
    CHECK(v == 4);
}

TEST_CASE("timeout: a slow operation is cancelled and unwinds - the task goes on") {
    runtime rt;
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
}

TEST_CASE("timeout: nested - the inner deadline fires first and the outer one still holds") {
    runtime rt;
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
}

TEST_CASE("timeout: a real cancellation is not mistaken for the deadline") {
    runtime rt;
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
}

TEST_CASE("timeout: void operations report whether they completed") {
    runtime rt;
    rt.block_on([&]() -> task<void> {
        CHECK(co_await timeout(1s, []() -> task<void> { co_return; }()));
        CHECK_FALSE(co_await timeout(1ms, []() -> task<void> { co_await sleep(1s); }()));
    }());
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
