#include "runtime_clock.hpp"

#include <chrono>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rtkit::detail {

namespace {

#if defined(__x86_64__)
/// Whether the cycle counter can stand in for the monotonic clock: the kernel
/// keeps time with it, which it does only once it found the counter constant
/// in rate and in step across CPUs.
bool kernel_keeps_time_by_tsc() {
    std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string name;
    return source >> name && name == "tsc";
}

std::uint64_t cycles() noexcept {
    return __rdtsc();
}

/// Nanoseconds per cycle, measured once against the monotonic clock over
/// 200 us and lowered by 1%: elapsed times converted with it are never
/// longer than the real ones.
double nanoseconds_per_cycle_at_most() {
    struct sample {
        std::uint64_t cycle;
        std::chrono::steady_clock::time_point at;
    };
    // A reading of both clocks whose cycle count is known to within 1,000
    // cycles of the monotonic reading (none if the thread was preempted).
    auto take = [] {
        for (;;) {
            const std::uint64_t before = cycles();
            const auto at = std::chrono::steady_clock::now();
            const std::uint64_t after = cycles();
            if (after - before < 1'000) return sample{before + (after - before) / 2, at};
        }
    };
    const sample start = take();
    while (std::chrono::steady_clock::now() - start.at < std::chrono::microseconds(200)) {
    }
    const sample end = take();
    const double ns = std::chrono::duration<double, std::nano>(end.at - start.at).count();
    return 0.99 * ns / static_cast<double>(end.cycle - start.cycle);
}
#endif

}  // namespace

runtime_clock::runtime_clock(kind k) noexcept
    : virtual_(k == kind::virtual_time), marks_([&] {
#if defined(__x86_64__)
          static const bool tsc = kernel_keeps_time_by_tsc();
          if (!virtual_ && tsc) return mark_kind::cycles;
#endif
          return mark_kind::exact_ns;
      }()) {
}

instant runtime_clock::monotonic_now() noexcept {
    return std::chrono::time_point_cast<duration>(std::chrono::steady_clock::now());
}

runtime_clock::mark runtime_clock::take_mark() const noexcept {
#if defined(__x86_64__)
    if (marks_ == mark_kind::cycles) return cycles();
#endif
    return static_cast<mark>(now().time_since_epoch().count());
}

instant runtime_clock::instant_of_mark(mark m) const noexcept {
#if defined(__x86_64__)
    if (marks_ == mark_kind::cycles) {
        static const double ns_per_cycle = nanoseconds_per_cycle_at_most();
        // The cycles are read first: the span they measure ends before `now`.
        const std::uint64_t cycles_now = cycles();
        const instant exact_now = monotonic_now();
        // The processor may have read the mark's counter up to a few hundred
        // cycles before the instructions ahead of it ran: leave those out.
        constexpr std::uint64_t reorder_allowance = 1'024;
        if (cycles_now <= m + reorder_allowance) return exact_now;
        const double elapsed_ns =
            static_cast<double>(cycles_now - m - reorder_allowance) * ns_per_cycle;
        return exact_now - duration(static_cast<std::int64_t>(elapsed_ns));
    }
#endif
    return instant(duration(static_cast<std::int64_t>(m)));
}

void runtime_clock::advance_to(instant t) noexcept {
    const std::int64_t to = t.time_since_epoch().count();
    std::int64_t at = virtual_ns_.load(std::memory_order_relaxed);
    while (to > at && !virtual_ns_.compare_exchange_weak(at, to, std::memory_order_acq_rel)) {
    }
}

}  // namespace rtkit::detail
