#pragma once
// rtkit::timer_driver: the deadline store that timer plugins implement.
#include <cstdint>
#include <optional>

#include "rtkit/plugin_object.hpp"
#include "rtkit/time.hpp"
#include "rtkit/waker.hpp"

namespace rtkit {

/// Identifies one armed deadline; generation-checked, so cancelling a timer
/// that already fired, or whose slot was reused, is a harmless no-op.
using timer_handle = std::uint64_t;

/// Keeps deadlines with their wakers and fires them when the kernel says the
/// time has come.
///
/// The clock: a runtime has one clock, and every instant the kernel passes
/// (insert's deadline, fire's now) is on it. The kernel reads the time itself
/// (cx::now(), a sleep's deadline, what it fires with); the driver only
/// compares the instants it is given. A driver that answers
/// query_interface(timer_clock_binding_name) (rtkit/clock.hpp) is bound to the
/// runtime's clock once, before any other call, and its now() then returns that
/// clock's time, which may be a virtual clock that starts at zero and jumps by
/// hours; a driver that does not keeps steady_clock, and the runtime refuses a
/// virtual clock for it.
///
/// Threads: the kernel calls insert, cancel, next_deadline and fire from one
/// thread at a time, the one that holds the runtime's worker ("the owner").
/// That thread can change between calls (the current-thread runtime lends its
/// worker to each block_on caller and to a background thread); the kernel
/// orders the calls (each happens-before the next), so the driver needs no
/// lock for them, but must keep no thread-local state. now() may be called
/// from any thread at any time, concurrently with the rest. Tasks on other
/// threads arm timers through the kernel, which forwards the request to the
/// owner.
///
/// Nothing here blocks or sleeps: the kernel waits for the next deadline in
/// the reactor. The wakers fire() runs are called inside it; they may cancel()
/// timers (another one due in the same fire() included, which then does not
/// fire) and nothing else of the driver.
class timer_driver : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_TIMER, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Any thread, concurrently with every other call. The bound clock's time,
    /// or steady_clock's for a driver that binds none: monotonic, never smaller
    /// than a value it returned before on any thread. Keep it as cheap as a
    /// clock_gettime(CLOCK_MONOTONIC). Never throws.
    virtual instant now() const noexcept = 0;

    /// Owner. Arms `w` to be woken once, by the first fire(now) whose `now` is
    /// at or after `deadline`, never earlier (a deadline already past fires at
    /// the next fire()). A deadline far ahead, up to instant::max(), must not
    /// wrap around into the past: late is allowed, early never. The returned
    /// handle differs from the handle of every timer still armed. May allocate:
    /// throws std::bad_alloc and nothing else, and then nothing is armed and
    /// `w` is dropped without a wake.
    virtual timer_handle insert(instant deadline, waker w) = 0;

    /// Owner. Disarms the timer and drops its waker without waking it; true
    /// when it did. False, doing nothing, when the timer already fired or was
    /// cancelled, or the handle is stale (its slot since reused). Keep it cheap
    /// (a wheel's is O(1), a heap's O(log n)): the kernel cancels every timeout
    /// whose work finished first.
    virtual bool cancel(timer_handle handle) noexcept = 0;

    /// Owner. The earliest armed deadline, or nothing when no timer is armed.
    /// It may be rounded up to the driver's resolution, never down: the kernel
    /// waits until then and calls fire(), so an earlier answer makes it spin.
    virtual std::optional<instant> next_deadline() const noexcept = 0;

    /// Owner. Wakes, once each, and disarms every timer whose deadline is at
    /// or before `now`; returns how many fired. Later timers stay armed. What
    /// is due is decided from `now` alone, never from a clock reading of the
    /// driver's own (a test may pass an instant the clock has not reached).
    /// They wake in deadline order at the driver's resolution (a wheel's tick:
    /// the earlier tick first, a deadline already past when it was inserted
    /// counting as due in the tick the wheel stood at), timers with equal
    /// deadlines in the order they were inserted. A timer a waker cancels
    /// before its turn does not fire and is not counted. Should not throw (the wakers do not, and
    /// no allocation is needed). A throw ends the block_on that was driving the worker, or stops
    /// the runtime's background thread with a report on stderr, so it must leave every timer it did
    /// not fire still armed.
    virtual std::size_t fire(instant now) = 0;
};

}  // namespace rtkit
