#include "runtime_clock.hpp"

#include <time.h>

#include <chrono>

namespace rtkit::detail {

namespace {

instant from_timespec(const timespec& t) noexcept {
    return instant(duration(static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec));
}

/// How far CLOCK_MONOTONIC_COARSE may lag CLOCK_MONOTONIC: one tick of the
/// kernel's timekeeping (4 ms at HZ=250). Zero when the system has no coarse
/// clock: now_or_slightly_later() then reads the exact one.
duration coarse_lag() noexcept {
    timespec resolution{};
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) != 0) return duration{-1};
    return duration(static_cast<std::int64_t>(resolution.tv_sec) * 1'000'000'000 +
                    resolution.tv_nsec);
}

const duration coarse_lag_ = coarse_lag();

}  // namespace

instant runtime_clock::monotonic_now() noexcept {
    // steady_clock is CLOCK_MONOTONIC, the clock the coarse one lags.
    return std::chrono::time_point_cast<duration>(std::chrono::steady_clock::now());
}

instant runtime_clock::now_or_slightly_later() const noexcept {
    if (virtual_) return virtual_now();
    timespec coarse{};
    if (coarse_lag_.count() < 0 || clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse) != 0)
        return monotonic_now();
    // The coarse clock is the monotonic one as of its last tick: at most one
    // tick behind, never ahead.
    return from_timespec(coarse) + coarse_lag_;
}

void runtime_clock::advance_to(instant t) noexcept {
    const std::int64_t to = t.time_since_epoch().count();
    std::int64_t at = virtual_ns_.load(std::memory_order_relaxed);
    while (to > at && !virtual_ns_.compare_exchange_weak(at, to, std::memory_order_acq_rel)) {
    }
}

}  // namespace rtkit::detail
