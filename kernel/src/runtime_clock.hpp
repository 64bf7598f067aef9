#pragma once
// A runtime's one clock.
#include <atomic>
#include <cstdint>

#include "rtkit/clock.hpp"

namespace rtkit::detail {

/// The clock every worker, timer driver and deadline of one runtime reads
/// (rtkit::clock_source, lent to the timer drivers that bind to it). Kernel
/// code never reads the system clock but through here.
///
/// - monotonic: the system's monotonic clock (steady_clock's epoch).
/// - virtual: starts at zero and moves only when the runtime moves it
///   (advance_to), which it does when nothing can run before the next timer:
///   a program that sleeps an hour ends at once, with its events in the same
///   order.
///
/// Besides now(), the clock takes marks: a note of "now" cheaper than now()
/// (on x86-64 with a TSC the kernel trusts, the cycle counter), turned into
/// an instant later by instant_of_mark(). A deadline that counts from a call
/// marks the call and pays for the conversion only if it ever arms a timer.
class runtime_clock final : public clock_source {
  public:
    enum class kind : std::uint8_t { monotonic, virtual_time };
    using mark = std::uint64_t;

    explicit runtime_clock(kind k) noexcept;
    runtime_clock(const runtime_clock&) = delete;
    runtime_clock& operator=(const runtime_clock&) = delete;

    /// Now, exactly (any thread).
    instant now() const noexcept override { return virtual_ ? virtual_now() : monotonic_now(); }

    /// Notes now, cheaply (any thread).
    mark take_mark() const noexcept;
    /// When `m` was taken, or slightly later, never earlier: what a deadline
    /// that counts from the mark may start from without ever coming early.
    /// Never later than now(). Call it on the thread that took the mark,
    /// soon after: a cycle counter is only trusted for a short span.
    instant instant_of_mark(mark m) const noexcept;

    bool is_virtual() const noexcept { return virtual_; }
    /// Virtual only: moves the clock forward to `t` (never back). Any thread.
    void advance_to(instant t) noexcept;

  private:
    enum class mark_kind : std::uint8_t { exact_ns, cycles };

    static instant monotonic_now() noexcept;
    instant virtual_now() const noexcept {
        return instant(duration(virtual_ns_.load(std::memory_order_acquire)));
    }

    const bool virtual_;
    const mark_kind marks_;
    std::atomic<std::int64_t> virtual_ns_{0};
};

}  // namespace rtkit::detail
