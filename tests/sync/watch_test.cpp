// rtkit::sync::watch: receivers read the latest value and wait for changes
// they have not seen.
#include <string>
#include <thread>
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

namespace {

task<bool> wait_for_change(watch_receiver<int>& rx, std::atomic<bool>& waiting) {
    waiting = true;
    co_return co_await rx.changed();
}

}  // namespace

TEST_CASE("watch: a receiver starts with the initial value seen") {
    auto [tx, rx] = make_watch<std::string>("initial");
    CHECK(rx.value() == "initial");
    CHECK(tx.value() == "initial");
    CHECK_FALSE(rx.has_changed());
    CHECK(tx.receiver_count() == 1);
    CHECK_FALSE(rx.is_closed());
}

TEST_CASE("watch: changed is true at once for a value not seen yet - then waits") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        CHECK(tx.send(1));
        CHECK(rx.has_changed());
        CHECK(co_await rx.changed());
        CHECK_FALSE(rx.has_changed());
        CHECK(rx.value() == 1);
        std::atomic<bool> waiting{false};
        auto h = spawn(wait_for_change(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        CHECK_FALSE(h.is_finished());
        CHECK(tx.send(2));
        CHECK((co_await std::move(h)).value());
        CHECK(rx.value() == 2);
    }());
}

TEST_CASE("watch: a receiver that looks late sees only the latest value") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        for (int i = 1; i <= 5; ++i)
            CHECK(tx.send(i));
        CHECK(co_await rx.changed());
        CHECK(rx.value() == 5);
        CHECK_FALSE(rx.has_changed());  // one change to see, not five
    }());
}

TEST_CASE("watch: value_and_update marks the value seen - value does not") {
    auto [tx, rx] = make_watch<int>(0);
    tx.send(7);
    CHECK(rx.value() == 7);
    CHECK(rx.has_changed());
    CHECK(rx.value_and_update() == 7);
    CHECK_FALSE(rx.has_changed());
}

TEST_CASE("watch: subscribers and copies each keep what they have seen") {
    auto [tx, rx] = make_watch<int>(0);
    tx.send(1);
    watch_receiver<int> fresh = tx.subscribe();
    watch_receiver<int> copy = rx;
    CHECK_FALSE(fresh.has_changed());  // subscribed at 1
    CHECK(copy.has_changed());         // copied from rx, which has not seen 1
    CHECK(tx.receiver_count() == 3);
    (void)copy.value_and_update();
    CHECK(rx.has_changed());
}

TEST_CASE("watch: send with no receiver changes nothing - send_replace stores anyway") {
    auto [tx, rx] = make_watch<std::string>("a");
    { auto gone = std::move(rx); }
    std::string b = "b";
    CHECK_FALSE(tx.send(std::move(b)));
    CHECK(b == "b");
    CHECK(tx.value() == "a");
    CHECK(tx.send_replace("c") == "a");
    CHECK(tx.value() == "c");
    watch_receiver<std::string> late = tx.subscribe();
    CHECK(late.value() == "c");
}

TEST_CASE("watch: a send whose copy throws changes nothing") {
    using sync::test::copy_may_throw;
    auto [tx, rx] = make_watch<copy_may_throw>(copy_may_throw(1));
    const copy_may_throw two(2);
    copy_may_throw::fail_copies = true;
    CHECK_THROWS_AS(tx.send(two), std::runtime_error);
    copy_may_throw::fail_copies = false;
    CHECK_FALSE(rx.has_changed());
    CHECK(rx.value().value == 1);
}

TEST_CASE("watch: once every sender is gone - the last change - then false") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        watch_receiver<int> other = tx.subscribe();
        std::atomic<bool> waiting{false};
        auto h = spawn(wait_for_change(other, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        tx.send(1);
        CHECK((co_await std::move(h)).value());
        waiting = false;
        h = spawn(wait_for_change(other, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        { auto gone = std::move(tx); }
        CHECK_FALSE((co_await std::move(h)).value());  // woken by the end
        CHECK(rx.is_closed());
        CHECK(co_await rx.changed());  // 1, not seen by rx yet
        CHECK(rx.value() == 1);
        CHECK_FALSE(co_await rx.changed());
    }());
}

TEST_CASE("watch: a changed cancelled while it waits marks nothing seen") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        std::atomic<bool> waiting{false};
        auto h = spawn(wait_for_change(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        h.cancel();
        CHECK((co_await std::move(h)).is_cancelled());
        tx.send(1);
        CHECK(co_await rx.changed());
    }());
}

TEST_CASE("watch: a changed cancelled after a send woke it leaves the change unseen") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        std::atomic<bool> waiting{false};
        auto h = spawn(wait_for_change(rx, waiting));
        co_await yield_until([&] { return waiting.load(); });
        co_await let_others_run();
        tx.send(1);  // wakes it...
        h.cancel();  // ...and it is cancelled before it runs
        CHECK((co_await std::move(h)).is_cancelled());
        CHECK(rx.has_changed());
        CHECK(co_await rx.changed());
    }());
}

TEST_CASE("watch: receivers on two workers follow a sender to its last value") {
    static constexpr int last = 2000;
    runtime rt(sync::test::multi_thread(2));
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_watch<int>(0);
        std::vector<join_handle<int>> watchers;
        for (int w = 0; w < 4; ++w) {
            watchers.push_back(spawn([](watch_receiver<int> rx) -> task<int> {
                int seen = 0, changes = 0;
                while (co_await rx.changed()) {
                    const int v = rx.value_and_update();
                    CHECK(v > seen);  // never back in time
                    seen = v;
                    ++changes;
                }
                CHECK(changes >= 1);
                co_return seen;
            }(rx)));
        }
        { auto drop = std::move(rx); }
        auto sender = spawn([](watch_sender<int> tx) -> task<void> {
            for (int i = 1; i <= last; ++i) {
                tx.send(i);
                if (i % 16 == 0) co_await yield_now();
            }
        }(std::move(tx)));
        CHECK((co_await std::move(sender)).is_ok());
        for (auto& w : watchers)
            CHECK((co_await std::move(w)).value() == last);
    }());
}

TEST_CASE("watch: a plain thread's send wakes a task waiting on another thread") {
    auto [tx, rx] = make_watch<int>(0);
    runtime rt;
    std::atomic<bool> waiting{false};
    std::thread setter([&waiting, tx = std::move(tx)]() mutable {
        while (!waiting.load(std::memory_order_acquire))
            std::this_thread::yield();
        tx.send(42);
    });
    const int got =
        rt.block_on([](watch_receiver<int>& rx, std::atomic<bool>& waiting) -> task<int> {
            auto change = rx.changed();
            CHECK(co_await sync::test::flag_when_suspended(change, waiting));
            co_return rx.value();
        }(rx, waiting));
    setter.join();
    CHECK(got == 42);
}
