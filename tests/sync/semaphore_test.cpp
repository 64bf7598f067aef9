// semaphore: counted permits, RAII, strict FIFO, cancellation.
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;
using rtkit::sync::test::let_others_run;
using rtkit::sync::test::yield_until;

namespace {

task<std::size_t> acquire_n(semaphore& sem, std::size_t n, std::atomic<bool>& waiting,
                            std::vector<std::size_t>& served) {
    waiting = true;
    semaphore_permit p = co_await sem.acquire(n);
    served.push_back(n);
    co_return p.count();
}

}  // namespace

TEST_CASE("semaphore: try_acquire - RAII permits - forget and release") {
    semaphore sem(3);
    {
        std::optional<semaphore_permit> two = sem.try_acquire(2);
        REQUIRE(two);
        CHECK(two->count() == 2);
        CHECK(sem.available_permits() == 1);
        CHECK_FALSE(sem.try_acquire(2));
    }
    CHECK(sem.available_permits() == 3);
    sem.try_acquire(1)->forget();
    CHECK(sem.available_permits() == 2);
    sem.release(1);
    CHECK(sem.available_permits() == 3);
}

TEST_CASE("semaphore: waiters are served in FIFO order - a big head is not starved") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        semaphore sem(0);
        std::vector<std::size_t> served;
        std::atomic<bool> w3{false}, w1{false};
        auto big = spawn(acquire_n(sem, 3, w3, served));
        co_await yield_until([&] { return w3.load(); });
        auto small = spawn(acquire_n(sem, 1, w1, served));
        co_await yield_until([&] { return w1.load(); });
        co_await let_others_run();
        sem.release(1);  // not enough for the head; the small one behind it must wait
        co_await let_others_run();
        CHECK(served.empty());
        CHECK_FALSE(sem.try_acquire(1));  // no overtaking from outside either
        sem.release(3);
        CHECK((co_await std::move(big)).value() == 3);
        CHECK((co_await std::move(small)).value() == 1);
        CHECK(served == std::vector<std::size_t>{3, 1});
        CHECK(sem.available_permits() == 4);
    }());
}

TEST_CASE("semaphore: cancel during acquire at the head lets the ones behind through") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        semaphore sem(1);
        std::vector<std::size_t> served;
        std::atomic<bool> w2{false}, w1{false};
        auto big = spawn(acquire_n(sem, 2, w2, served));
        co_await yield_until([&] { return w2.load(); });
        auto small = spawn(acquire_n(sem, 1, w1, served));
        co_await yield_until([&] { return w1.load(); });
        co_await let_others_run();
        CHECK(served.empty());
        big.cancel();
        CHECK((co_await std::move(big)).is_cancelled());
        CHECK((co_await std::move(small)).value() == 1);
        CHECK(served == std::vector<std::size_t>{1});
        CHECK(sem.available_permits() == 1);
    }());
}

TEST_CASE("semaphore: cancel after the permits were granted gives them to the next waiter") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        semaphore sem(0);
        std::vector<std::size_t> served;
        std::atomic<bool> wa{false}, wb{false};
        auto a = spawn(acquire_n(sem, 2, wa, served));
        co_await yield_until([&] { return wa.load(); });
        auto b = spawn(acquire_n(sem, 2, wb, served));
        co_await yield_until([&] { return wb.load(); });
        co_await let_others_run();
        sem.release(2);  // granted to a...
        a.cancel();      // ...which is cancelled before it runs
        CHECK((co_await std::move(a)).is_cancelled());
        CHECK((co_await std::move(b)).value() == 2);
        CHECK(served == std::vector<std::size_t>{2});
        CHECK(sem.available_permits() == 2);
    }());
}
