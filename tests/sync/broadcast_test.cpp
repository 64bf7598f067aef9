// rtkit::sync::broadcast: every receiver sees every value in order; a
// receiver that falls behind the ring is told exactly how many it missed.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::tracked;
using rtkit::sync::test::yield_until;

namespace {

/// The value of a result that must hold one (0 with a failed check if not).
int value_of(broadcast_result<int> r) {
    REQUIRE(r);
    return *r;
}

task<broadcast_result<int>> receive(broadcast_receiver<int>& rx, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await rx.recv();
}

}  // namespace

TEST_CASE("broadcast: every receiver gets every value in order") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, a] = make_broadcast<std::string>(8);
        broadcast_receiver<std::string> b = tx.subscribe();
        CHECK(tx.receiver_count() == 2);
        CHECK(tx.send("one") == 2);
        CHECK(tx.send(std::string("two")) == 2);
        CHECK(a.size() == 2);
        CHECK(*co_await a.recv() == "one");
        CHECK(*co_await b.recv() == "one");
        CHECK(*co_await b.recv() == "two");
        CHECK(*co_await a.recv() == "two");
        CHECK(a.try_recv().is_empty());
        CHECK(b.size() == 0);
    }());
}

TEST_CASE("broadcast: a receiver sees only what is sent after it subscribed") {
    auto [tx, first] = make_broadcast<int>(4);
    CHECK(tx.send(1) == 1);
    broadcast_receiver<int> late = tx.subscribe();
    CHECK(tx.send(2) == 2);
    CHECK(value_of(first.try_recv()) == 1);
    CHECK(value_of(first.try_recv()) == 2);
    CHECK(value_of(late.try_recv()) == 2);
    CHECK(late.try_recv().is_empty());
}

TEST_CASE("broadcast: a copied receiver has the same values yet to take") {
    auto [tx, rx] = make_broadcast<int>(4);
    tx.send(1);
    tx.send(2);
    CHECK(value_of(rx.try_recv()) == 1);
    broadcast_receiver<int> copy = rx;
    CHECK(tx.receiver_count() == 2);
    CHECK(value_of(copy.try_recv()) == 2);
    CHECK(value_of(rx.try_recv()) == 2);
    CHECK(copy.try_recv().is_empty());
}

TEST_CASE(
    "broadcast: a lagging receiver is told how many it missed - then goes on from the oldest "
    "held") {
    auto [tx, slow] = make_broadcast<int>(4);
    broadcast_receiver<int> fast = tx.subscribe();
    for (int i = 0; i < 10; ++i) {
        CHECK(tx.send(i) == 2);
        CHECK(value_of(fast.try_recv()) == i);  // keeps up
    }
    CHECK(slow.size() == 4);
    broadcast_result<int> lag = slow.try_recv();
    CHECK(lag.is_lagged());
    CHECK_FALSE(lag);
    CHECK(lag.missed() == 6);
    for (int i = 6; i < 10; ++i)
        CHECK(value_of(slow.try_recv()) == i);
    CHECK(slow.try_recv().is_empty());
    // Caught up, it lags no more.
    tx.send(10);
    CHECK(value_of(slow.try_recv()) == 10);
    CHECK_THROWS_AS(lag.value(), std::logic_error);
}

TEST_CASE("broadcast: a waiting receiver woken by a send lags when the ring wraps before it runs") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_broadcast<int>(2);
        std::atomic<bool> waiting{false};
        auto h = spawn(receive(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        // In one root poll: the first send wakes it, three more overwrite the
        // value it was woken for and the one after.
        for (int i = 0; i < 4; ++i)
            tx.send(i);
        broadcast_result<int> got = (co_await std::move(h)).value();
        CHECK(got.is_lagged());
        CHECK(got.missed() == 2);
        CHECK(*co_await rx.recv() == 2);
        CHECK(*co_await rx.recv() == 3);
    }());
}

TEST_CASE("broadcast: once every sender is gone - the values left - then the end") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_broadcast<int>(4);
        broadcast_receiver<int> waiting_rx = tx.subscribe();
        std::atomic<bool> waiting{false};
        tx.send(1);
        CHECK(*co_await waiting_rx.recv() == 1);
        auto h = spawn(receive(waiting_rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        broadcast_sender<int> copy = tx;
        { auto gone = std::move(tx); }
        co_await let_others_run();
        CHECK_FALSE(h.is_finished());  // a copy of the sender is still there
        { auto gone = std::move(copy); }
        CHECK((co_await std::move(h)).value().is_closed());
        CHECK(*co_await rx.recv() == 1);
        CHECK((co_await rx.recv()).is_closed());
        CHECK(rx.try_recv().is_closed());
    }());
}

TEST_CASE("broadcast: a send with no receiver sends nothing and keeps the value") {
    auto [tx, rx] = make_broadcast<std::string>(2);
    { auto gone = std::move(rx); }
    std::string value = "kept";
    CHECK(tx.send(std::move(value)) == 0);
    CHECK(value == "kept");
    CHECK(tx.receiver_count() == 0);
    broadcast_receiver<std::string> again = tx.subscribe();
    CHECK(tx.send(std::move(value)) == 1);
    CHECK(*again.try_recv() == "kept");
}

TEST_CASE("broadcast: each value is destroyed once every receiver took it - or could not") {
    REQUIRE(tracked::live == 0);
    {
        auto [tx, a] = make_broadcast<tracked>(2);
        broadcast_receiver<tracked> b = tx.subscribe();
        tx.send(tracked(1));
        CHECK(tracked::live == 1);
        CHECK(a.try_recv()->value == 1);
        CHECK(tracked::live == 1);  // b has yet to take it
        CHECK(b.try_recv()->value == 1);
        CHECK(tracked::live == 0);
        tx.send(tracked(2));
        tx.send(tracked(3));
        tx.send(tracked(4));  // overwrites 2, which neither took
        CHECK(tracked::live == 2);
        { auto gone = std::move(b); }
        CHECK(tracked::live == 2);  // a has yet to take them
        CHECK(a.try_recv().missed() == 1);
        CHECK(a.try_recv()->value == 3);
        CHECK(tracked::live == 1);
    }
    CHECK(tracked::live == 0);
}

namespace {
/// A value that holds a sender of the channel it travels in.
struct holds_sender {
    std::shared_ptr<broadcast_sender<holds_sender>> tx;
};
}  // namespace

TEST_CASE(
    "broadcast: a value whose destructor drops the last sender is destroyed outside the lock") {
    auto [tx, rx] = make_broadcast<holds_sender>(2);
    auto inner = std::make_shared<broadcast_sender<holds_sender>>(tx);
    CHECK(tx.send(holds_sender{std::move(inner)}) == 1);
    { auto gone = std::move(tx); }  // the last sender is in the ring now
    // Dropping the receiver destroys the value, which drops the last sender,
    // which locks the channel to wake receivers: under the lock, a hang.
    { auto gone = std::move(rx); }
}

TEST_CASE("broadcast: a send whose copy throws sends nothing and overwrites nothing") {
    using sync::test::copy_may_throw;
    auto [tx, rx] = make_broadcast<copy_may_throw>(1);
    CHECK(tx.send(copy_may_throw(1)) == 1);  // the ring is full; rx has not taken 1
    const copy_may_throw two(2);
    copy_may_throw::fail_copies = true;
    CHECK_THROWS_AS(tx.send(two), std::runtime_error);
    copy_may_throw::fail_copies = false;
    broadcast_result<copy_may_throw> r = rx.try_recv();  // the last taker: moved, not copied
    REQUIRE(r);
    CHECK(r->value == 1);
    CHECK(rx.try_recv().is_empty());
}

TEST_CASE("broadcast: a recv cancelled while it waits takes nothing") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_broadcast<int>(2);
        std::atomic<bool> waiting{false};
        auto h = spawn(receive(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        tx.send(5);
        CHECK(*co_await rx.recv() == 5);
    }());
}

TEST_CASE("broadcast: a recv cancelled after a send woke it leaves the value for the next recv") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_broadcast<int>(2);
        std::atomic<bool> waiting{false};
        auto h = spawn(receive(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        tx.send(5);  // wakes it...
        h.cancel();  // ...and it is cancelled before it runs
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(rx.size() == 1);
        CHECK(*co_await rx.recv() == 5);
    }());
}

TEST_CASE("broadcast: capacity 0 is refused") {
    CHECK_THROWS_AS(make_broadcast<int>(0), std::invalid_argument);
}

TEST_CASE(
    "broadcast: receivers on several workers each see every value - or count what they missed") {
    static constexpr int values = 3000;
    static constexpr int receivers = 4;
    runtime rt(sync::test::multi_thread(2));
    rt.block_on([]() -> task<void> {
        auto [tx, first] = make_broadcast<int>(16);
        std::vector<join_handle<std::uint64_t>> handles;
        for (int r = 0; r < receivers; ++r) {
            // Each counts the values it got and the ones it missed, and checks
            // that every value follows the one before it, or a lag.
            handles.push_back(spawn([](broadcast_receiver<int> rx) -> task<std::uint64_t> {
                std::uint64_t seen = 0;
                int last = -1;
                for (;;) {
                    broadcast_result<int> r = co_await rx.recv();
                    if (r.is_closed()) break;
                    if (r.is_lagged()) {
                        seen += r.missed();
                        last += static_cast<int>(r.missed());
                        continue;
                    }
                    CHECK(*r == last + 1);
                    last = *r;
                    ++seen;
                }
                co_return seen;
            }(tx.subscribe())));
        }
        { auto drop = std::move(first); }
        auto sender = spawn([](broadcast_sender<int> tx) -> task<void> {
            for (int i = 0; i < values; ++i) {
                tx.send(i);
                if (i % 8 == 0) co_await yield_now();
            }
        }(std::move(tx)));
        CHECK((co_await std::move(sender)).is_ok());
        for (auto& h : handles)
            CHECK((co_await std::move(h)).value() == values);
    }());
}

TEST_CASE("broadcast: a plain thread's sends wake a task waiting on another thread") {
    constexpr int values = 2000;
    auto [tx, rx] = make_broadcast<int>(values);  // large enough that nothing lags
    runtime rt;
    std::atomic<bool> waiting{false};
    std::thread producer([&waiting, tx = std::move(tx)]() mutable {
        while (!waiting.load(std::memory_order_acquire))
            std::this_thread::yield();
        for (int i = 0; i < values; ++i)
            tx.send(i);
    });
    const int sum =
        rt.block_on([](broadcast_receiver<int>& rx, std::atomic<bool>& waiting) -> task<int> {
            int sum = 0, expected = 0;
            auto first = rx.recv();
            broadcast_result<int> r = co_await sync::test::flag_when_suspended(first, waiting);
            for (; r; r = co_await rx.recv()) {
                CHECK(*r == expected++);
                sum += *r;
            }
            CHECK(r.is_closed());
            co_return sum;
        }(rx, waiting));
    producer.join();
    CHECK(sum == values * (values - 1) / 2);
}
