// Cancelling a task while it waits on a channel leaves the channel as if the
// waiter had never come: no value lost, no slot leaked, the next in line served.
#include <memory>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

namespace {

task<std::optional<int>> receive(channel_receiver<int>& rx, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await rx.recv();
}

task<bool> send_one(channel_sender<int> tx, int value, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await tx.send(value);
}

task<int> reserve_and_send(channel_sender<int> tx, int value, std::atomic<bool>& waiting) {
    waiting = true;
    channel_permit<int> permit = co_await tx.reserve();
    co_return permit.send(value) ? value : -1;
}

}  // namespace

TEST_CASE("cancel during recv: a value sent afterwards goes to the next recv") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        std::atomic<bool> waiting{false};
        auto h = spawn(receive(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(tx.try_send(7) == try_send_result::sent);
        CHECK(*co_await rx.recv() == 7);
        // The slot accounting is exact: one slot, free again.
        CHECK(tx.try_send(8) == try_send_result::sent);
        CHECK(tx.try_send(9) == try_send_result::full);
    }());
}

TEST_CASE("cancel during recv - after a value was handed over but before it resumed") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        std::atomic<bool> waiting{false};
        auto h = spawn(receive(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        // In one root poll: the value goes to the waiting receiver, which is
        // then cancelled before it runs. The value must come back.
        CHECK(tx.try_send(7) == try_send_result::sent);
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        // It skipped the buffer, so its slot is free: 8 fits behind it.
        CHECK(tx.try_send(8) == try_send_result::sent);
        CHECK(tx.try_send(9) == try_send_result::full);
        CHECK(rx.size() == 2);
        CHECK(*co_await rx.recv() == 7);
        CHECK(tx.try_send(9) == try_send_result::full);  // 7 held no slot: none was freed
        CHECK(*co_await rx.recv() == 8);
        CHECK(tx.try_send(9) == try_send_result::sent);
        CHECK(*co_await rx.recv() == 9);
    }());
}

TEST_CASE("cancel during send on a full channel: nothing sent - no slot kept") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        CHECK(tx.try_send(1) == try_send_result::sent);
        std::atomic<bool> waiting{false};
        auto h = spawn(send_one(tx, 2, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(*co_await rx.recv() == 1);
        CHECK_FALSE(rx.try_recv());  // 2 was never sent
        CHECK(tx.try_send(3) == try_send_result::sent);
        CHECK(tx.try_send(4) == try_send_result::full);
    }());
}

TEST_CASE("cancel during send - after the slot was granted: the next sender in line gets it") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        CHECK(tx.try_send(1) == try_send_result::sent);
        std::atomic<bool> a_waiting{false}, b_waiting{false};
        auto a = spawn(send_one(tx, 2, a_waiting));
        co_await yield_until([&] { return a_waiting.load(); });
        auto b = spawn(send_one(tx, 3, b_waiting));
        co_await yield_until([&] { return b_waiting.load(); });
        co_await let_others_run();
        // In one root poll: taking 1 grants the slot to a, then a is cancelled.
        CHECK(rx.try_recv() == 1);
        a.cancel();
        CHECK((co_await std::move(a)).is_cancelled());
        CHECK((co_await std::move(b)).value());
        CHECK(*co_await rx.recv() == 3);
        CHECK_FALSE(rx.try_recv());
        CHECK(tx.try_send(4) == try_send_result::sent);
        CHECK(tx.try_send(5) == try_send_result::full);
    }());
}

TEST_CASE("cancel during reserve: no slot taken - nothing lost - the next in line served") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        CHECK(tx.try_send(1) == try_send_result::sent);
        std::atomic<bool> a_waiting{false}, b_waiting{false}, c_waiting{false};
        auto a = spawn(reserve_and_send(tx, 2, a_waiting));
        co_await yield_until([&] { return a_waiting.load(); });
        auto b = spawn(reserve_and_send(tx, 3, b_waiting));
        co_await yield_until([&] { return b_waiting.load(); });
        auto c = spawn(reserve_and_send(tx, 4, c_waiting));
        co_await yield_until([&] { return c_waiting.load(); });
        co_await let_others_run();

        // a: cancelled while queued.
        a.cancel();
        CHECK((co_await std::move(a)).is_cancelled());
        // b: granted by the recv of 1, cancelled before it resumed.
        CHECK(rx.try_recv() == 1);
        b.cancel();
        CHECK((co_await std::move(b)).is_cancelled());
        // c got the slot b gave back.
        CHECK((co_await std::move(c)).value() == 4);
        CHECK(*co_await rx.recv() == 4);
        CHECK_FALSE(rx.try_recv());
        CHECK(tx.try_send(5) == try_send_result::sent);
        CHECK(tx.try_send(6) == try_send_result::full);
    }());
}

TEST_CASE("cancel: a task unwinding with a permit frees the slot") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        std::atomic<bool> holding{false};
        auto h = spawn([](channel_sender<int> tx, std::atomic<bool>& holding) -> task<void> {
            channel_permit<int> permit = co_await tx.reserve();
            holding = true;
            co_await sleep(std::chrono::hours(1));
            permit.send(1);
        }(tx, holding));
        co_await yield_until([&] { return holding.load(); });
        CHECK(tx.try_send(2) == try_send_result::full);
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(tx.try_send(2) == try_send_result::sent);
        CHECK(*co_await rx.recv() == 2);
    }());
}

TEST_CASE("cancel: a pending cancel makes even a ready send or recv throw - with no effect") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(2);
        CHECK(tx.try_send(1) == try_send_result::sent);
        auto probe = spawn([](channel_sender<int>& tx, channel_receiver<int>& rx) -> task<int> {
            int thrown = 0;
            try {
                co_await sleep(std::chrono::hours(1));  // cancelled here...
            } catch (const task_cancelled&) {
            }
            // ...and every later await of the cancelled task throws without acting.
            try {
                (void)co_await tx.send(2);
            } catch (const task_cancelled&) {
                ++thrown;
            }
            try {
                (void)co_await rx.recv();
            } catch (const task_cancelled&) {
                ++thrown;
            }
            co_return thrown;
        }(tx, rx));
        co_await let_others_run();
        probe.cancel();
        outcome<int> o = co_await std::move(probe);
        REQUIRE(o.is_ok());
        CHECK(o.value() == 2);
        CHECK(rx.size() == 1);  // 2 was not sent, 1 was not taken
        CHECK(*co_await rx.recv() == 1);
    }());
}

TEST_CASE("shutdown: tasks of a destroyed runtime waiting on a shared channel leave it usable") {
    auto [tx, rx] = make_channel<int>(1);
    CHECK(tx.try_send(1) == try_send_result::sent);
    {
        runtime doomed;
        doomed.block_on([](channel_sender<int>& tx) -> task<void> {
            std::atomic<bool> waiting{false};
            auto h = spawn(send_one(tx, 2, waiting));  // waits: the channel is full
            co_await yield_until([&] { return waiting.load(); });
        }(tx));
    }  // shutdown cancels the waiting sender
    runtime rt;
    rt.block_on([](channel_sender<int>& tx, channel_receiver<int>& rx) -> task<void> {
        CHECK(*co_await rx.recv() == 1);
        CHECK_FALSE(rx.try_recv());
        CHECK(co_await tx.send(3));
        CHECK(*co_await rx.recv() == 3);
    }(tx, rx));
}
