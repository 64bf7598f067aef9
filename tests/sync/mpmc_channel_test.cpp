// rtkit::sync::mpmc_channel: any number of senders and receivers, each value
// to exactly one receiver, and nothing lost when a waiter is cancelled.
#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::tracked;
using rtkit::sync::test::yield_until;

namespace {

task<std::optional<int>> receive(mpmc_receiver<int> rx, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await rx.recv();
}

task<bool> send_one(mpmc_sender<int> tx, int value, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await tx.send(value);
}

/// Spawns receive(rx) and returns once it waits.
task<join_handle<std::optional<int>>> waiting_receiver(mpmc_receiver<int>& rx) {
    auto waiting = std::make_shared<std::atomic<bool>>(false);
    auto h = spawn(receive(rx, *waiting));
    co_await yield_until([&] { return waiting->load(); });
    co_await let_others_run();
    co_return h;
}

}  // namespace

TEST_CASE("mpmc: each value goes to one receiver - in the order sent") {
    auto [tx, a] = make_mpmc_channel<int>(4);
    mpmc_receiver<int> b = a;
    for (int i = 0; i < 4; ++i)
        CHECK(tx.try_send(i) == try_send_result::sent);
    CHECK(tx.try_send(4) == try_send_result::full);
    CHECK(a.size() == 4);
    CHECK(a.try_recv() == 0);
    CHECK(b.try_recv() == 1);
    CHECK(b.try_recv() == 2);
    CHECK(a.try_recv() == 3);
    CHECK_FALSE(a.try_recv());
    CHECK_FALSE(b.try_recv());
    CHECK(a.capacity() == 4);
}

TEST_CASE("mpmc: waiting receivers are served in the order they came") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(4);
        auto first = co_await waiting_receiver(rx);
        auto second = co_await waiting_receiver(rx);
        CHECK(tx.try_send(1) == try_send_result::sent);
        CHECK(tx.try_send(2) == try_send_result::sent);
        CHECK((co_await std::move(first)).value() == 1);
        CHECK((co_await std::move(second)).value() == 2);
    }());
}

TEST_CASE("mpmc: senders wait in line while it is full - a recv lets the first in") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(1);
        CHECK(tx.try_send(0) == try_send_result::sent);
        std::atomic<bool> a_waiting{false}, b_waiting{false};
        auto a = spawn(send_one(tx, 1, a_waiting));
        co_await yield_until([&] { return a_waiting.load(); });
        co_await let_others_run();
        auto b = spawn(send_one(tx, 2, b_waiting));
        co_await yield_until([&] { return b_waiting.load(); });
        co_await let_others_run();
        CHECK(*co_await rx.recv() == 0);
        CHECK((co_await std::move(a)).value());
        CHECK(*co_await rx.recv() == 1);
        CHECK((co_await std::move(b)).value());
        CHECK(*co_await rx.recv() == 2);
    }());
}

TEST_CASE("mpmc: once every sender is gone - the values left - then the end for every receiver") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(4);
        mpmc_sender<int> copy = tx;
        auto waiter = co_await waiting_receiver(rx);
        CHECK(tx.try_send(1) == try_send_result::sent);
        CHECK((co_await std::move(waiter)).value() == 1);
        CHECK(copy.try_send(2) == try_send_result::sent);
        waiter = co_await waiting_receiver(rx);  // 2 is buffered: it took it at once
        CHECK((co_await std::move(waiter)).value() == 2);
        waiter = co_await waiting_receiver(rx);
        { auto gone = std::move(tx); }
        co_await let_others_run();
        CHECK_FALSE(waiter.is_finished());  // the copy can still send
        { auto gone = std::move(copy); }
        CHECK_FALSE((co_await std::move(waiter)).value());
        CHECK(rx.is_finished());
        CHECK_FALSE(co_await rx.recv());
    }());
}

TEST_CASE("mpmc: once every receiver is gone - sends fail and queued values are destroyed") {
    REQUIRE(tracked::live == 0);
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<tracked>(1);
        CHECK(tx.try_send(tracked(1)) == try_send_result::sent);
        std::atomic<bool> waiting{false};
        auto blocked = spawn([](mpmc_sender<tracked> tx, std::atomic<bool>& waiting) -> task<bool> {
            waiting = true;
            co_return co_await tx.send(tracked(2));
        }(tx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        mpmc_receiver<tracked> copy = rx;
        { auto gone = std::move(rx); }
        CHECK_FALSE(tx.is_closed());
        { auto gone = std::move(copy); }
        CHECK(tx.is_closed());
        CHECK_FALSE((co_await std::move(blocked)).value());
        CHECK(tracked::live == 0);
        CHECK(tx.try_send(tracked(3)) == try_send_result::closed);
        CHECK_FALSE(co_await tx.send(tracked(4)));
    }());
    CHECK(tracked::live == 0);
}

TEST_CASE("mpmc: a receiver cancelled with a value handed to it passes it to the next in line") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(2);
        auto first = co_await waiting_receiver(rx);
        auto second = co_await waiting_receiver(rx);
        CHECK(tx.try_send(1) == try_send_result::sent);  // into first's hands...
        first.cancel();                                  // ...which is cancelled before it runs
        CHECK((co_await std::move(first)).is_cancelled());
        CHECK((co_await std::move(second)).value() == 1);
        CHECK_FALSE(rx.try_recv());
    }());
}

TEST_CASE("mpmc: a receiver cancelled with a value handed to it puts it back in front") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(2);
        auto h = co_await waiting_receiver(rx);
        CHECK(tx.try_send(1) == try_send_result::sent);
        CHECK(tx.try_send(2) == try_send_result::sent);
        CHECK(tx.try_send(3) == try_send_result::full);  // 1 still holds its slot
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(rx.size() == 2);
        CHECK(rx.try_recv() == 1);
        CHECK(rx.try_recv() == 2);
        CHECK(tx.try_send(3) == try_send_result::sent);
    }());
}

TEST_CASE("mpmc: a value in flight to a cancelled receiver is not lost when the senders are gone") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(2);
        auto first = co_await waiting_receiver(rx);
        auto second = co_await waiting_receiver(rx);
        // In one root poll: 7 is handed to first, the last sender goes, and
        // first is cancelled before it runs. second must not be told the
        // channel ended while 7 may still come back.
        CHECK(tx.try_send(7) == try_send_result::sent);
        { auto gone = std::move(tx); }
        first.cancel();
        CHECK((co_await std::move(first)).is_cancelled());
        CHECK((co_await std::move(second)).value() == 7);
        CHECK(rx.is_finished());
        CHECK_FALSE(co_await rx.recv());
    }());
}

TEST_CASE("mpmc: a send cancelled while it waits sends nothing and keeps no slot") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_mpmc_channel<int>(1);
        CHECK(tx.try_send(1) == try_send_result::sent);
        std::atomic<bool> waiting{false};
        auto h = spawn(send_one(tx, 2, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(rx.try_recv() == 1);
        CHECK_FALSE(rx.try_recv());
        CHECK(tx.try_send(3) == try_send_result::sent);
        CHECK(tx.try_send(4) == try_send_result::full);
    }());
}

TEST_CASE("mpmc: capacity 0 is refused") {
    CHECK_THROWS_AS(make_mpmc_channel<int>(0), std::invalid_argument);
}

TEST_CASE("mpmc: producers and consumers on two workers and a plain thread - each value once") {
    static constexpr int per_producer = 2000;
    static constexpr int producers = 3;  // two tasks and a plain thread
    static constexpr int consumers = 3;
    auto [tx, rx] = make_mpmc_channel<int>(8);
    runtime rt(sync::test::multi_thread(2));
    std::thread plain([tx]() mutable {
        for (int i = 0; i < per_producer; ++i) {
            const int value = 2 * per_producer + i;
            while (tx.try_send(value) == try_send_result::full)
                std::this_thread::yield();
        }
    });
    std::vector<int> got =
        rt.block_on([](mpmc_sender<int> tx, mpmc_receiver<int> rx) -> task<std::vector<int>> {
            std::vector<join_handle<std::vector<int>>> takers;
            for (int c = 0; c < consumers; ++c) {
                takers.push_back(spawn([](mpmc_receiver<int> rx) -> task<std::vector<int>> {
                    std::vector<int> mine;
                    while (std::optional<int> v = co_await rx.recv())
                        mine.push_back(*v);
                    co_return mine;
                }(rx)));
            }
            { auto drop = std::move(rx); }
            std::vector<join_handle<void>> senders;
            for (int p = 0; p < producers - 1; ++p) {
                senders.push_back(spawn([](mpmc_sender<int> tx, int base) -> task<void> {
                    for (int i = 0; i < per_producer; ++i)
                        CHECK(co_await tx.send(base + i));
                }(tx, p * per_producer)));
            }
            { auto drop = std::move(tx); }
            for (auto& s : senders)
                CHECK((co_await std::move(s)).is_ok());
            std::vector<int> all;
            for (auto& t : takers) {
                std::vector<int> mine = (co_await std::move(t)).value();
                // One FIFO queue: what one consumer got of one producer is in order.
                std::vector<int> last(producers, -1);
                for (int v : mine) {
                    CHECK(v > last[static_cast<std::size_t>(v / per_producer)]);
                    last[static_cast<std::size_t>(v / per_producer)] = v;
                }
                all.insert(all.end(), mine.begin(), mine.end());
            }
            co_return all;
        }(std::move(tx), std::move(rx)));
    plain.join();
    std::sort(got.begin(), got.end());
    REQUIRE(got.size() == static_cast<std::size_t>(producers * per_producer));
    for (int i = 0; i < producers * per_producer; ++i)
        CHECK(got[static_cast<std::size_t>(i)] == i);
}
