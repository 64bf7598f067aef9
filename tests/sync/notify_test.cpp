// notify: notify_one stores one permit, notify_all wakes current waiters only.
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

namespace {

task<void> wait_and_count(sync::notify& n, std::atomic<int>& waiting, std::atomic<int>& woken) {
    ++waiting;
    co_await n.notified();
    ++woken;
}

}  // namespace

TEST_CASE("notify: notify_one before anyone waits stores a single permit") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::notify n;
        n.notify_one();
        n.notify_one();         // still one permit
        co_await n.notified();  // takes it at once
        std::atomic<int> waiting{0}, woken{0};
        auto h = spawn(wait_and_count(n, waiting, woken));
        co_await yield_until([&] { return waiting.load() == 1; });
        co_await let_others_run();
        CHECK(woken == 0);  // the second notify_one was not stored
        n.notify_one();
        CHECK((co_await std::move(h)).is_ok());
        CHECK(woken == 1);
    }());
}

TEST_CASE("notify: notify_one wakes waiters one at a time - in FIFO order") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::notify n;
        std::vector<int> order;
        std::vector<join_handle<void>> hs;
        for (int i = 0; i < 3; ++i) {
            std::atomic<bool> started{false};
            hs.push_back(spawn([](sync::notify& n, std::vector<int>& order, int i,
                                  std::atomic<bool>& started) -> task<void> {
                started = true;
                co_await n.notified();
                order.push_back(i);
            }(n, order, i, started)));
            co_await yield_until([&] { return started.load(); });
        }
        for (int i = 0; i < 3; ++i) {
            n.notify_one();
            co_await yield_until([&] { return order.size() == static_cast<std::size_t>(i + 1); });
        }
        CHECK(order == std::vector<int>{0, 1, 2});
        for (auto& h : hs)
            CHECK((co_await std::move(h)).is_ok());
    }());
}

TEST_CASE("notify: notify_all wakes everyone waiting now and stores nothing") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::notify n;
        std::atomic<int> waiting{0}, woken{0};
        std::vector<join_handle<void>> hs;
        for (int i = 0; i < 4; ++i)
            hs.push_back(spawn(wait_and_count(n, waiting, woken)));
        co_await yield_until([&] { return waiting.load() == 4; });
        n.notify_all();
        for (auto& h : hs)
            CHECK((co_await std::move(h)).is_ok());
        CHECK(woken == 4);
        auto late = spawn(wait_and_count(n, waiting, woken));
        co_await yield_until([&] { return waiting.load() == 5; });
        co_await let_others_run();
        CHECK(woken == 4);  // no permit was left behind
        n.notify_one();
        CHECK((co_await std::move(late)).is_ok());
    }());
}

TEST_CASE("notify: a notify_one that reached a cancelled waiter passes to the next") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::notify n;
        std::atomic<int> waiting{0}, woken{0};
        auto a = spawn(wait_and_count(n, waiting, woken));
        co_await yield_until([&] { return waiting.load() == 1; });
        auto b = spawn(wait_and_count(n, waiting, woken));
        co_await yield_until([&] { return waiting.load() == 2; });
        co_await let_others_run();
        n.notify_one();  // goes to a...
        a.cancel();      // ...which is cancelled before it runs
        CHECK((co_await std::move(a)).is_cancelled());
        CHECK((co_await std::move(b)).is_ok());
        CHECK(woken == 1);
    }());
}

TEST_CASE("notify: cancel while queued leaves the line - a cancelled notified stores nothing") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::notify n;
        std::atomic<int> waiting{0}, woken{0};
        auto a = spawn(wait_and_count(n, waiting, woken));
        co_await yield_until([&] { return waiting.load() == 1; });
        co_await let_others_run();
        a.cancel();
        CHECK((co_await std::move(a)).is_cancelled());
        n.notify_one();  // nobody waits: stored
        co_await n.notified();
        CHECK(woken == 0);
    }());
}
