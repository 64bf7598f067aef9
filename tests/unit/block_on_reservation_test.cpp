// The current-thread worker reserved for the thread that returned it idle
// (worker_reservation.hpp): that thread's next block_on borrows it without
// the lock, and every other way to the worker revokes the reservation first.
// Each test holds the owner inside a borrow (its root's first poll blocks
// the thread) while another thread wakes a task, calls block_on or shuts
// the runtime down, and checks that nothing is lost or retired twice.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "asymmetric_fence.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// A root that finishes in its first poll, after blocking its thread there
/// until `go` is set: the borrow of a reserved worker lasts that long.
task<int> blocks_first_poll(test::signal_flag& inside, test::signal_flag& go, int value) {
    inside.set();
    CHECK(go.wait_for(10s));
    co_return value;
}

/// Runs block_on (of a root that returns 1) on this thread and, on another
/// thread, `meanwhile` while the root's first poll holds this one.
template <class F>
int borrow_while(runtime& rt, F meanwhile) {
    test::signal_flag inside, go;
    std::thread other([&] {
        if (inside.wait_for(10s)) meanwhile();
        go.set();
    });
    const int value = rt.block_on(blocks_first_poll(inside, go, 1));
    other.join();
    return value;
}

/// A task that waits for a notification, then says so. Cancelled while it
/// waits, it unwinds and its frame goes (nothing else holds it).
task<void> runs_when_notified(sync::notify& notified, test::signal_flag& ran, test::counted) {
    co_await notified.notified();
    ran.set();
}

/// Leaves a task waiting on `notified` in the runtime's store: the worker is
/// idle with it (nothing to run, no timer, no I/O).
void leave_waiting_task(runtime& rt, sync::notify& notified, test::signal_flag& ran,
                        std::atomic<int>& alive) {
    rt.block_on([](sync::notify& n, test::signal_flag& r, std::atomic<int>& a) -> task<void> {
        (void)spawn(runs_when_notified(n, r, test::counted(a)));
        co_return;
    }(notified, ran, alive));
    // block_on ran it until it waited.
    const runtime_metrics m = rt.metrics();
    REQUIRE(m.tasks_alive == 1);
    REQUIRE(m.queued == 0);
}

/// block_on calls that borrowed a reserved worker so far.
std::uint64_t borrows(const runtime& rt) {
    return rt.metrics().block_on_reserved_borrows;
}

/// Makes sure the worker rests reserved for this thread: a block_on that
/// returns it idle reserves it, and the next one borrows it.
void reserve_for_this_thread(runtime& rt) {
    rt.block_on(test::value_of(1));
    const std::uint64_t before = borrows(rt);
    CHECK(rt.block_on(test::value_of(2)) == 2);
    REQUIRE(borrows(rt) == before + 1);
}

/// A runtime whose worker rests reserved for this thread, idle with one task
/// in its store that waits for `notified`.
struct reserved_with_waiting_task {
    runtime rt;
    sync::notify notified;
    test::signal_flag ran;      ///< the task ran past its wait
    std::atomic<int> alive{0};  ///< its frame lives

    reserved_with_waiting_task() {
        leave_waiting_task(rt, notified, ran, alive);
        reserve_for_this_thread(rt);
    }
};

}  // namespace

TEST_CASE("block_on reservation: the same thread borrows its idle worker again and again") {
    if (!detail::heavy_fence_available()) return;  // never reserved: nothing to test
    runtime rt;
    reserve_for_this_thread(rt);
    const std::uint64_t before = borrows(rt);
    for (int i = 0; i < 100; ++i)
        CHECK(rt.block_on(test::value_of(i)) == i);
    CHECK(borrows(rt) == before + 100);
}

TEST_CASE(
    "block_on reservation: a root that spawns or sleeps in its first poll goes on as a loan") {
    if (!detail::heavy_fence_available()) return;
    runtime rt;
    reserve_for_this_thread(rt);
    // Spawns and joins: the borrow becomes a loan after the first poll.
    CHECK(rt.block_on([]() -> task<std::int64_t> {
        auto h = spawn(test::value_of(40));
        co_return (co_await std::move(h)).value() + 2;
    }()) == 42);
    // Sleeps: a timer armed in the first poll.
    CHECK(rt.block_on([]() -> task<int> {
        co_await sleep(1ms);
        co_return 7;
    }()) == 7);
    // Idle again afterwards: reserved again.
    reserve_for_this_thread(rt);
}

TEST_CASE("block_on reservation: a wake from another thread during a borrow is not lost") {
    if (!detail::heavy_fence_available()) return;
    reserved_with_waiting_task r;
    // The wake finds the worker resting while its owner borrows it: the owner
    // must see the woken task, or hand it to the background thread as it leaves.
    const std::uint64_t before = borrows(r.rt);
    CHECK(borrow_while(r.rt, [&] { r.notified.notify_one(); }) == 1);
    CHECK(borrows(r.rt) == before + 1);
    CHECK(r.ran.wait_for(10s));
}

TEST_CASE("block_on reservation: another thread's block_on during a borrow runs its root") {
    if (!detail::heavy_fence_available()) return;
    runtime rt;
    reserve_for_this_thread(rt);
    std::atomic<int> other_result{0};
    // The worker is borrowed: the other root runs without it.
    CHECK(borrow_while(rt, [&] { other_result = rt.block_on(test::value_of(11)); }) == 1);
    CHECK(other_result == 11);
    // The revoked reservation left an ordinary resting worker behind.
    CHECK(rt.block_on(test::value_of(12)) == 12);
    std::thread again([&] { other_result = rt.block_on(test::value_of(13)); });
    again.join();
    CHECK(other_result == 13);
}

TEST_CASE("block_on reservation: a shutdown during a borrow leaves the worker to the borrower") {
    if (!detail::heavy_fence_available()) return;
    reserved_with_waiting_task r;
    CHECK(borrow_while(r.rt, [&] { r.rt.shutdown(); }) == 1);
    // The borrower retired the worker as it left: the waiting task unwound,
    // its frame is gone, once (AddressSanitizer would see a second time).
    CHECK(r.alive == 0);
    CHECK_FALSE(r.ran.is_set());
    CHECK_THROWS_AS(r.rt.block_on(test::value_of(4)), std::logic_error);
}

TEST_CASE("block_on reservation: the worker reserved for a thread that ended goes to the next") {
    if (!detail::heavy_fence_available()) return;
    runtime rt;
    std::thread first([&] { reserve_for_this_thread(rt); });
    first.join();
    CHECK(rt.block_on(test::value_of(8)) == 8);  // revokes the ended thread's reservation
    reserve_for_this_thread(rt);
}

#ifdef RTKIT_CHAOS
namespace {

/// Holds the borrowing thread at `where` (a reservation chaos site) while
/// another thread wakes a waiting task, then checks that the task runs.
void wake_while_owner_at(detail::chaos::site where) {
    reserved_with_waiting_task r;
    test::signal_flag at_site, fired;
    std::atomic<bool> armed{false};
    const std::thread::id owner = std::this_thread::get_id();
    test::chaos_hook hold([&](detail::chaos::site s) {
        if (s != where || std::this_thread::get_id() != owner || !armed.exchange(false)) return;
        at_site.set();
        CHECK(fired.wait_for(10s));
    });
    std::thread waker([&] {
        REQUIRE(at_site.wait_for(10s));
        r.notified.notify_one();
        fired.set();
    });
    armed = true;
    CHECK(r.rt.block_on(test::value_of(6)) == 6);
    waker.join();
    CHECK(r.ran.wait_for(10s));
}

}  // namespace

TEST_CASE("block_on reservation: a wake revokes while the owner enters its borrow") {
    if (!detail::heavy_fence_available()) return;
    wake_while_owner_at(detail::chaos::site::reservation_entering);
}

TEST_CASE("block_on reservation: a wake revokes while the owner leaves its borrow") {
    if (!detail::heavy_fence_available()) return;
    wake_while_owner_at(detail::chaos::site::reservation_leaving);
}
#endif
