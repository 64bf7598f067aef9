#pragma once
// rtkit::timer_driver: the clock and the deadline store that timer plugins implement.
#include <cstdint>
#include <optional>

#include "rtkit/plugin_object.hpp"
#include "rtkit/time.hpp"
#include "rtkit/waker.hpp"

namespace rtkit {

/// Identifies one armed deadline; generation-checked, so cancelling a timer
/// that already fired, or whose slot was reused, is a harmless no-op.
using timer_handle = std::uint64_t;

/// Keeps deadlines with their wakers and provides the runtime's clock.
///
/// Threads: one owner (the worker) calls every method; other threads arm
/// timers through the kernel, which forwards the request to the owner.
/// Fired wakers must not call back into the driver (kernel wakers only enqueue).
class timer_driver : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_TIMER, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Any thread. The driver's clock: monotonic, never goes back.
    virtual instant now() const noexcept = 0;

    /// Owner thread. Arms `w` to be woken once at or after `deadline` (a deadline
    /// in the past fires at the next fire()). May allocate; throws std::bad_alloc.
    virtual timer_handle insert(instant deadline, waker w) = 0;

    /// Owner thread. Disarms in O(1) and drops the waker without waking it.
    /// Returns false when the timer already fired or the handle is stale.
    virtual bool cancel(timer_handle handle) noexcept = 0;

    /// Owner thread. The earliest armed deadline (possibly rounded up to the
    /// driver's resolution), or nothing when no timer is armed.
    virtual std::optional<instant> next_deadline() const noexcept = 0;

    /// Owner thread. Wakes every timer whose deadline is at or before `now`.
    /// Returns how many fired.
    virtual std::size_t fire(instant now) = 0;
};

}  // namespace rtkit
