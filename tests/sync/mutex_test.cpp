// mutex<T>: exclusion across suspensions, FIFO handoff, cancellation.
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

namespace {

task<void> lock_and_record(sync::mutex<std::vector<int>>& m, int id, std::atomic<bool>& waiting) {
    waiting = true;
    auto guard = co_await m.lock();
    guard->push_back(id);
}

}  // namespace

TEST_CASE("mutex: excludes tasks across their suspensions") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::mutex<int> m(0);
        std::vector<join_handle<void>> hs;
        for (int t = 0; t < 4; ++t) {
            hs.push_back(spawn([](sync::mutex<int>& m) -> task<void> {
                for (int i = 0; i < 100; ++i) {
                    auto guard = co_await m.lock();
                    int seen = *guard;
                    co_await yield_now();
                    *guard = seen + 1;
                }
            }(m)));
        }
        for (auto& h : hs)
            CHECK((co_await std::move(h)).is_ok());
        CHECK(*(co_await m.lock()) == 400);
    }());
}

TEST_CASE("mutex: try_lock - unlock - and FIFO handoff to waiters") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::mutex<std::vector<int>> m;
        auto guard = m.try_lock();
        REQUIRE(guard);
        CHECK_FALSE(m.try_lock());
        std::vector<join_handle<void>> hs;
        for (int i = 0; i < 3; ++i) {
            std::atomic<bool> waiting{false};
            hs.push_back(spawn(lock_and_record(m, i, waiting)));
            co_await yield_until([&] { return waiting.load(); });
        }
        co_await let_others_run();
        (*guard)->push_back(-1);
        guard->unlock();
        CHECK_FALSE(m.try_lock());  // handed to the first waiter, not left free
        for (auto& h : hs)
            CHECK((co_await std::move(h)).is_ok());
        CHECK(m.get_unsynchronized() == std::vector<int>{-1, 0, 1, 2});
        CHECK(m.try_lock());
    }());
}

TEST_CASE("mutex: cancel during lock - queued or just handed the lock - the next waiter gets it") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        sync::mutex<std::vector<int>> m;
        std::optional<mutex_guard<std::vector<int>>> held = m.try_lock();
        REQUIRE(held);
        std::atomic<bool> wa{false}, wb{false}, wc{false};
        auto a = spawn(lock_and_record(m, 1, wa));
        co_await yield_until([&] { return wa.load(); });
        auto b = spawn(lock_and_record(m, 2, wb));
        co_await yield_until([&] { return wb.load(); });
        auto c = spawn(lock_and_record(m, 3, wc));
        co_await yield_until([&] { return wc.load(); });
        co_await let_others_run();

        b.cancel();  // queued in the middle
        CHECK((co_await std::move(b)).is_cancelled());
        held.reset();  // hands the lock to a...
        a.cancel();    // ...which is cancelled before it runs: c gets it
        CHECK((co_await std::move(a)).is_cancelled());
        CHECK((co_await std::move(c)).is_ok());
        CHECK(m.get_unsynchronized() == std::vector<int>{3});
        CHECK(m.try_lock());  // and it was released, not leaked
    }());
}
