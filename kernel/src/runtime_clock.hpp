#pragma once
// A runtime's one clock.
#include <atomic>
#include <cstdint>

#include "rtkit/clock.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

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
/// Marks also answer "has `t` come yet?" cheaply: compare take_mark() with
/// mark_before(t), computed once.
class runtime_clock final : public clock_source {
  public:
    enum class kind : std::uint8_t { monotonic, virtual_time };
    /// Grows with time: a later mark is never smaller.
    using mark = std::uint64_t;

    explicit runtime_clock(kind k) noexcept;
    runtime_clock(const runtime_clock&) = delete;
    runtime_clock& operator=(const runtime_clock&) = delete;

    /// Now, exactly (any thread).
    instant now() const noexcept override { return virtual_ ? virtual_now() : monotonic_now(); }

    /// Notes now, cheaply (any thread).
    mark take_mark() const noexcept {
#if defined(__x86_64__)
        if (marks_ == mark_kind::cycles) return __rdtsc();
#endif
        return static_cast<mark>(now().time_since_epoch().count());
    }
    /// When `m` was taken, or slightly later, never earlier: what a deadline
    /// that counts from the mark may start from without ever coming early.
    /// Later by at most a few microseconds (a cycle count is converted from
    /// a reading of the clock less than a millisecond away, with a 1% margin).
    /// Call it on the thread that took the mark, soon after.
    instant instant_of_mark(mark m) const noexcept;
    /// A mark below which every mark is taken before `t`: while take_mark()
    /// returns less, `t` has not come. Cautious, never late: it may stop
    /// saying so a little before `t` (1%), or at most a second after this
    /// call for a `t` further away; 0 for a `t` already past.
    mark mark_before(instant t) const noexcept;

    bool is_virtual() const noexcept {
        return virtual_;
    }
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

#if defined(__x86_64__)
/// Bounds on the length of a cycle of the counter: low <= the real length
/// <= high, and how many cycles a conversion may count from a reading of the
/// clock (about a millisecond; 0 when the length is not known, and then low
/// is 0 and high infinite).
struct cycle_rate {
    double ns_per_cycle_low;
    double ns_per_cycle_high;
    std::uint64_t reference_span;
};

/// Measures the cycle counter against `read_clock` (monotonic): over at least
/// 200 us, and long enough that the uncertainty of the readings (the cycles a
/// read of the clock takes) is within 1% of the span. Each bound counts that
/// uncertainty against it and adds 1%. A clock so slow to read that this
/// takes over 50 ms gives "not known". The runtime measures steady_clock once.
cycle_rate measure_cycle_rate(instant (*read_clock)() noexcept);
#endif

}  // namespace rtkit::detail
