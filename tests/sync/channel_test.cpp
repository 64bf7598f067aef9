// channel<T> on one runtime: order, ends, try_send/try_recv, permits, FIFO.
#include <memory>
#include <string>
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::tracked;
using rtkit::sync::test::yield_until;

namespace {

/// Sends [from, from + count). The parameter lives as long as the task's frame,
/// which its join handle keeps, so the sender is dropped by hand at the end.
task<void> produce(channel_sender<int> tx, int from, int count) {
    for (int i = from; i < from + count; ++i)
        CHECK(co_await tx.send(i));
    { auto done = std::move(tx); }
}

}  // namespace

TEST_CASE("channel: values arrive in order - recv ends once every sender is gone") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(4);
        auto producer = spawn(produce(std::move(tx), 0, 100));
        std::vector<int> got;
        while (std::optional<int> v = co_await rx.recv())
            got.push_back(*v);
        CHECK(got.size() == 100);
        for (int i = 0; i < 100; ++i)
            CHECK(got[static_cast<std::size_t>(i)] == i);
        CHECK(rx.is_finished());
        CHECK((co_await std::move(producer)).is_ok());
    }());
}

TEST_CASE("channel: many producers - one consumer - nothing lost") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(8);
        std::vector<join_handle<void>> producers;
        for (int p = 0; p < 4; ++p)
            producers.push_back(spawn(produce(tx, p * 1000, 1000)));
        { auto last = std::move(tx); }  // only the producers' copies are left
        long long sum = 0;
        int count = 0;
        while (std::optional<int> v = co_await rx.recv()) {
            sum += *v;
            ++count;
        }
        CHECK(count == 4000);
        CHECK(sum == 3999LL * 4000 / 2);
        for (auto& p : producers)
            CHECK((co_await std::move(p)).is_ok());
    }());
}

TEST_CASE("channel: try_send says full or closed and leaves the value with the caller") {
    auto [tx, rx] = make_channel<std::unique_ptr<int>>(1);
    auto first = std::make_unique<int>(1);
    CHECK(tx.try_send(std::move(first)) == try_send_result::sent);
    auto second = std::make_unique<int>(2);
    CHECK(tx.try_send(std::move(second)) == try_send_result::full);
    REQUIRE(second);
    CHECK(*second == 2);
    CHECK(rx.size() == 1);
    CHECK(rx.capacity() == 1);
    std::optional<std::unique_ptr<int>> got = rx.try_recv();
    REQUIRE(got);
    CHECK(**got == 1);
    CHECK_FALSE(rx.try_recv());
    { auto gone = std::move(rx); }
    CHECK(tx.is_closed());
    CHECK(tx.try_send(std::move(second)) == try_send_result::closed);
    REQUIRE(second);
    CHECK(*second == 2);
}

TEST_CASE("channel: send gives false once the receiver is gone - also to a waiting sender") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        CHECK(tx.try_send(1) == try_send_result::sent);
        std::atomic<bool> waiting{false};
        auto blocked = spawn([](channel_sender<int>& tx, std::atomic<bool>& waiting) -> task<bool> {
            waiting = true;
            co_return co_await tx.send(2);  // full: waits
        }(tx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        CHECK_FALSE(blocked.is_finished());
        { auto gone = std::move(rx); }
        CHECK_FALSE((co_await std::move(blocked)).value());
        CHECK_FALSE(co_await tx.send(3));
    }());
}

TEST_CASE("channel: senders waiting on a full channel are served in FIFO order") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        CHECK(tx.try_send(-1) == try_send_result::sent);
        std::vector<join_handle<void>> senders;
        for (int i = 0; i < 5; ++i) {
            std::atomic<bool> started{false};
            senders.push_back(
                spawn([](channel_sender<int> tx, int i, std::atomic<bool>& started) -> task<void> {
                    started = true;
                    CHECK(co_await tx.send(i));
                }(tx, i, started)));
            co_await yield_until([&] { return started.load(); });
        }
        // A newcomer does not overtake the line, not even with try_send.
        CHECK(tx.try_send(99) == try_send_result::full);
        std::vector<int> got;
        for (int i = 0; i < 6; ++i)
            got.push_back(*co_await rx.recv());
        CHECK(got == std::vector<int>{-1, 0, 1, 2, 3, 4});
        for (auto& s : senders)
            CHECK((co_await std::move(s)).is_ok());
    }());
}

TEST_CASE("channel: reserve then send - a permit dropped unsent frees its slot") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<std::string>(1);
        {
            channel_permit<std::string> permit = co_await tx.reserve();
            REQUIRE(permit);
            CHECK(tx.try_send("no room") == try_send_result::full);
        }
        CHECK(tx.try_send("room again") == try_send_result::sent);
        CHECK(*co_await rx.recv() == "room again");

        channel_permit<std::string> permit = co_await tx.reserve();
        CHECK(permit.send("through the permit"));
        CHECK_FALSE(permit);
        CHECK_THROWS_AS(permit.send("twice"), channel_closed);
        CHECK(*co_await rx.recv() == "through the permit");
    }());
}

TEST_CASE("channel: a live permit keeps the channel open after the last sender is gone") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(2);
        channel_permit<int> permit = co_await tx.reserve();
        { auto gone = std::move(tx); }
        CHECK_FALSE(rx.is_finished());
        CHECK(permit.send(42));
        CHECK(*co_await rx.recv() == 42);
        CHECK_FALSE(co_await rx.recv());
        CHECK(rx.is_finished());
    }());
}

TEST_CASE("channel: reserve after the receiver is gone gives an empty permit") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        channel_permit<int> held = co_await tx.reserve();
        { auto gone = std::move(rx); }
        CHECK_FALSE(held.send(1));  // reserved while open: the value is dropped
        channel_permit<int> empty = co_await tx.reserve();
        CHECK_FALSE(empty);
        CHECK_THROWS_AS(empty.send(1), channel_closed);
    }());
}

TEST_CASE("channel: a receiver waiting on an empty channel is woken by a send") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_channel<int>(1);
        auto consumer = spawn([](channel_receiver<int> rx) -> task<int> {
            int sum = 0;
            while (std::optional<int> v = co_await rx.recv())
                sum += *v;
            co_return sum;
        }(std::move(rx)));
        for (int i = 1; i <= 10; ++i) {
            co_await let_others_run(3);  // the consumer is waiting when the value comes
            CHECK(co_await tx.send(i));
        }
        { auto gone = std::move(tx); }
        CHECK((co_await std::move(consumer)).value() == 55);
    }());
}

TEST_CASE("channel: values left in a channel are destroyed with it - and senders see it closed") {
    tracked::live = 0;
    {
        auto [tx, rx] = make_channel<tracked>(4);
        CHECK(tx.try_send(tracked(1)) == try_send_result::sent);
        CHECK(tx.try_send(tracked(2)) == try_send_result::sent);
        CHECK(tracked::live == 2);
        { auto gone = std::move(rx); }
        CHECK(tracked::live == 0);  // dropping the receiver drops what it never took
        CHECK(tx.try_send(tracked(3)) == try_send_result::closed);
    }
    CHECK(tracked::live == 0);
}

TEST_CASE("channel: capacity zero is refused") {
    CHECK_THROWS_AS(make_channel<int>(0), std::invalid_argument);
}
