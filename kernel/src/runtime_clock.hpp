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
class runtime_clock final : public clock_source {
  public:
    enum class kind : std::uint8_t { monotonic, virtual_time };

    explicit runtime_clock(kind k) noexcept : virtual_(k == kind::virtual_time) {}
    runtime_clock(const runtime_clock&) = delete;
    runtime_clock& operator=(const runtime_clock&) = delete;

    /// Now, exactly (any thread).
    instant now() const noexcept override { return virtual_ ? virtual_now() : monotonic_now(); }
    /// An instant no earlier than now and at most the coarse clock's
    /// resolution later, read at a fraction of now()'s cost (any thread):
    /// what a deadline that counts from "now" may start from without ever
    /// coming early. Virtual: now().
    instant now_or_slightly_later() const noexcept;

    bool is_virtual() const noexcept { return virtual_; }
    /// Virtual only: moves the clock forward to `t` (never back). Any thread.
    void advance_to(instant t) noexcept;

  private:
    static instant monotonic_now() noexcept;
    instant virtual_now() const noexcept {
        return instant(duration(virtual_ns_.load(std::memory_order_acquire)));
    }

    const bool virtual_;
    std::atomic<std::int64_t> virtual_ns_{0};
};

}  // namespace rtkit::detail
