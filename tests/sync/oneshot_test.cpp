// oneshot<T>: one value, or nullopt when the sender is dropped.
#include <memory>
#include <string>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

TEST_CASE("oneshot: the value reaches a receiver that waits for it") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_oneshot<std::string>();
        auto h = spawn([](oneshot_receiver<std::string> rx) -> task<std::string> {
            co_return (co_await rx).value_or("none");
        }(std::move(rx)));
        co_await let_others_run();
        CHECK(tx.send("hello"));
        CHECK((co_await std::move(h)).value() == "hello");
    }());
}

TEST_CASE("oneshot: sent before the await - it is there at once - a second await gets nullopt") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_oneshot<int>();
        CHECK(tx.send(5));
        CHECK_THROWS_AS(tx.send(6), std::logic_error);
        CHECK(co_await rx == 5);
        CHECK_FALSE(co_await rx);
    }());
}

TEST_CASE("oneshot: a dropped sender gives nullopt - also to a waiting receiver") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_oneshot<int>();
        std::atomic<bool> waiting{false};
        auto h = spawn([](oneshot_receiver<int> rx, std::atomic<bool>& waiting) -> task<bool> {
            waiting = true;
            co_return (co_await rx).has_value();
        }(std::move(rx), waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        { auto gone = std::move(tx); }
        CHECK_FALSE((co_await std::move(h)).value());
    }());
}

TEST_CASE("oneshot: send fails and keeps the value once the receiver is gone") {
    auto [tx, rx] = make_oneshot<std::unique_ptr<int>>();
    CHECK_FALSE(tx.is_closed());
    { auto gone = std::move(rx); }
    CHECK(tx.is_closed());
    auto value = std::make_unique<int>(3);
    CHECK_FALSE(tx.send(std::move(value)));
    REQUIRE(value);
    CHECK(*value == 3);
}

TEST_CASE("oneshot: cancel during the await - the value sent afterwards is kept") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_oneshot<int>();
        std::atomic<bool> waiting{false};
        auto h = spawn([](oneshot_receiver<int>& rx, std::atomic<bool>& waiting) -> task<void> {
            waiting = true;
            (void)co_await rx;
        }(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(tx.send(9));
        CHECK(rx.try_recv() == 9);
    }());
}
