// The loan protocol of the current-thread driver, with its slot forced into the
// states the seed's tests force (../shared/seeds/current_thread_driver.rs.txt):
// the interleavings that behaviour tests only hit by chance.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>
#include <type_traits>

#include "../support/deadlock_watchdog.hpp"
#include "current_thread_driver.hpp"
#include "rtkit/plugin_loader.hpp"
#include "rtkit/rtkit.hpp"
#include "thread_context.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace rtkit::detail {

/// Reaches into the driver's slot, as the seed's tests do with lock_slot().
struct current_thread_driver_test_access {
    using slot_state = current_thread_driver::slot_state;
    static void set_slot(current_thread_driver& d, slot_state s, std::thread::id requester = {},
                         held_worker held = nullptr) {
        std::lock_guard lock(d.mutex_);
        d.slot_ = s;
        d.requester_ = requester;
        d.held_ = std::move(held);
        if (s == slot_state::requested)
            d.handover_requested_.store(true, std::memory_order_release);
        d.changed_.notify_all();
    }
    static slot_state slot(current_thread_driver& d) {
        std::lock_guard lock(d.mutex_);
        return d.slot_;
    }
    static bool holds_worker(current_thread_driver& d) {
        std::lock_guard lock(d.mutex_);
        return d.held_ != nullptr;
    }
    static void notify(current_thread_driver& d) {
        std::lock_guard lock(d.mutex_);
        d.changed_.notify_all();
    }
    static bool handover_requested(current_thread_driver& d) {
        return d.handover_requested_.load(std::memory_order_acquire);
    }
    /// Waits (up to `limit`) while `pred(slot)` holds; returns the slot then.
    template <class Pred>
    static slot_state wait_while(current_thread_driver& d, Pred pred, std::chrono::seconds limit) {
        std::unique_lock lock(d.mutex_);
        d.changed_.wait_for(lock, limit, [&] { return !pred(d.slot_); });
        return d.slot_;
    }
    /// Replaces the slot once a requester raised its flag (it then sleeps in
    /// its handover wait); false if no request came within `limit`.
    static bool replace_when_requested(current_thread_driver& d, slot_state s,
                                       std::thread::id requester, held_worker held,
                                       std::chrono::seconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            {
                std::lock_guard lock(d.mutex_);
                if (d.handover_requested_.load(std::memory_order_acquire)) {
                    d.slot_ = s;
                    d.requester_ = requester;
                    d.held_ = std::move(held);
                    d.changed_.notify_all();
                    return true;
                }
            }
            std::this_thread::yield();
        }
        return false;
    }
    static held_worker acquire(current_thread_driver& d) { return d.acquire(); }
    static void close_slot(current_thread_driver& d) { d.close_slot(); }
    static void release(current_thread_driver& d, held_worker w) { d.release(std::move(w)); }
};

}  // namespace rtkit::detail

namespace {

using detail::current_thread_driver;
using access = detail::current_thread_driver_test_access;
using slot_state = access::slot_state;
using test::run_or_abort_on_deadlock;

/// A runtime's parts without a background thread: the test decides who holds
/// the worker and what state the driver's slot is in.
struct bare_runtime {
    plugin_loader loader;
    detail::worker_group group{
        detail::worker_group::flavor::current_thread,
        std::make_shared<detail::io_driver>(loader.create_by_name<reactor>("epoll"), "epoll")};
    detail::worker& only_worker =
        group.add_worker(loader.create_by_name<timer_driver>("wheel"),
                         loader.create_by_name<lane_policy>("three_lane"));
    detail::region_node root_region;
    current_thread_driver driver{group, root_region};

    bare_runtime() { root_region.home = &only_worker.get_handle(); }

    /// The right to drive the worker (dropping it retires the worker).
    detail::held_worker make_worker() { return detail::held_worker(&only_worker); }

    /// Spawns `t` into `w` as its driver would, and polls until it suspended.
    void spawn_and_start(detail::worker& w, task<void> t) {
        detail::scoped_driving driving(&w.get_handle(), w.group().huge_pages());
        auto frame = t.release();
        auto& p = frame.promise();
        p.resume_point = frame;
        p.state.store(detail::task_state::one_ref | detail::task_state::spawned,
                      std::memory_order_relaxed);  // the store's; no handle
        w.get_handle().spawn(root_region, &p);
        while (w.run_once()) {
        }
    }
};

/// A task parked on a long timer whose destructor re-enters driver shutdown,
/// as the seed's re-entrant evidence sink does while the worker is dropped.
task<void> reenters_shutdown_when_destroyed(current_thread_driver& driver,
                                            std::atomic<int>& reentered) {
    struct guard {
        current_thread_driver& driver;
        std::atomic<int>& reentered;
        ~guard() {
            access::close_slot(driver);  // deadlocks if the worker is retired under the slot lock
            ++reentered;
        }
    } g{driver, reentered};
    co_await sleep(std::chrono::hours(1));
}

enum class retirement { offered, returned, closed_loan_return, background_waiting };

void assert_worker_drop_can_reenter(retirement how) {
    run_or_abort_on_deadlock("worker retirement re-entering shutdown", [how] {
        bare_runtime rt;
        std::atomic<int> reentered{0};
        auto w = rt.make_worker();
        rt.spawn_and_start(*w, reenters_shutdown_when_destroyed(rt.driver, reentered));
        REQUIRE(reentered == 0);

        switch (how) {
            case retirement::offered:
                access::set_slot(rt.driver, slot_state::offered, std::this_thread::get_id(),
                                 std::move(w));
                access::close_slot(rt.driver);
                break;
            case retirement::returned:
                access::set_slot(rt.driver, slot_state::returned, {}, std::move(w));
                access::close_slot(rt.driver);
                break;
            case retirement::closed_loan_return:
                access::close_slot(rt.driver);
                access::release(rt.driver, std::move(w));
                break;
            case retirement::background_waiting: {
                access::set_slot(rt.driver, slot_state::requested, std::this_thread::get_id());
                auto observer = std::async(std::launch::async, [&rt] {
                    slot_state seen = access::wait_while(
                        rt.driver, [](slot_state s) { return s == slot_state::requested; }, 5s);
                    rt.group.begin_shutdown();
                    access::notify(rt.driver);
                    return seen == slot_state::offered;
                });
                // The background loop offers the worker, then sees shutdown while
                // the worker sits offered in the slot, and retires it.
                rt.driver.run_background(std::move(w));
                CHECK(observer.get());
                break;
            }
        }
        CHECK(reentered == 1);
        CHECK(access::slot(rt.driver) == slot_state::closed);
    });
}

/// R1 asks for the worker; while it sleeps in its handover wait, the
/// background thread refuses and another caller (R2) moves the slot on.
/// R1 must come back refused at once, leave R2's state and flag alone.
void assert_refused_request_returns(slot_state replacement) {
    run_or_abort_on_deadlock("refused requester", [replacement] {
        bare_runtime rt;
        detail::held_worker foreign_offer;
        if (replacement == slot_state::offered) foreign_offer = rt.make_worker();
        auto requester = std::async(std::launch::async, [&rt] {
            return access::acquire(rt.driver) == nullptr;  // true: refused
        });
        const bool request_seen = access::replace_when_requested(
            rt.driver, replacement, std::this_thread::get_id(), std::move(foreign_offer), 5s);
        REQUIRE(request_seen);
        REQUIRE(requester.wait_for(5s) == std::future_status::ready);  // it did not wait on R2
        CHECK(requester.get());
        CHECK(access::slot(rt.driver) == replacement);
        if (replacement == slot_state::offered) CHECK(access::holds_worker(rt.driver));
        CHECK(access::handover_requested(rt.driver));  // R2's flag is still raised
        rt.group.begin_shutdown();
        access::close_slot(rt.driver);
    });
}

}  // namespace

TEST_CASE("driver protocol: shutdown retires an offered worker outside the slot lock") {
    assert_worker_drop_can_reenter(retirement::offered);
}

TEST_CASE("driver protocol: shutdown retires a returned worker outside the slot lock") {
    assert_worker_drop_can_reenter(retirement::returned);
}

TEST_CASE("driver protocol: a loan returned after shutdown retires outside the slot lock") {
    assert_worker_drop_can_reenter(retirement::closed_loan_return);
}

TEST_CASE("driver protocol: shutdown seen by the background thread while it offers") {
    assert_worker_drop_can_reenter(retirement::background_waiting);
}

TEST_CASE("driver protocol: a refused requester does not wait for a foreign loan") {
    assert_refused_request_returns(slot_state::loaned);
}

TEST_CASE("driver protocol: a refused requester does not wait for a new requester") {
    assert_refused_request_returns(slot_state::requested);
}

TEST_CASE("driver protocol: a refused requester does not take a new requester's offer") {
    assert_refused_request_returns(slot_state::offered);
}

// The seed's ScopedLocalStoreKey is !Send; here the guards that restore a
// thread's kernel state cannot be copied or moved out of their scope.
static_assert(!std::is_copy_constructible_v<detail::scoped_driving>);
static_assert(!std::is_move_constructible_v<detail::scoped_driving>);
static_assert(!std::is_copy_constructible_v<detail::scoped_task>);
static_assert(!std::is_move_constructible_v<detail::scoped_task>);
