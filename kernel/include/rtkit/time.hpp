#pragma once
// Time as the kernel sees it. Every instant comes from the runtime's one clock
// (rtkit/clock.hpp), never from a direct system-clock call elsewhere in kernel
// code, so a virtual clock can stand in for deterministic runs.
#include <chrono>
#include <cstdint>

namespace rtkit {

/// A span of time, in nanoseconds.
using duration = std::chrono::nanoseconds;

/// A point on a runtime's clock: steady_clock's epoch for the monotonic clock,
/// zero at the start for a virtual one; compare instants only with instants
/// of the same runtime.
using instant = std::chrono::time_point<std::chrono::steady_clock, duration>;

/// `t + d`, clamped to the clock's range instead of overflowing: a deadline
/// too far for the clock is instant::max() ("never"), not a wrapped "now".
/// Use it wherever a deadline is computed from a duration someone passed in.
constexpr instant saturating_add(instant t, duration d) noexcept {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(t.time_since_epoch().count(), d.count(), &sum))
        return d.count() > 0 ? instant::max() : instant::min();
    return instant(duration(sum));
}

}  // namespace rtkit
