#include "runtime_clock.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rtkit::detail {

namespace {

instant steady_now() noexcept {
    return std::chrono::time_point_cast<duration>(std::chrono::steady_clock::now());
}

}  // namespace

#if defined(__x86_64__)
namespace {

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

/// A reading of the clock and of the cycle counter just before and just
/// after it: the cycle count at the reading lies between the two.
struct clock_sample {
    std::uint64_t cycles_before;
    std::uint64_t cycles_after;
    instant at;
    std::uint64_t width() const noexcept { return cycles_after - cycles_before; }
};

/// The narrowest of a few readings (a preempted one is wide). Bounded: where
/// reading the clock always takes long (under valgrind, say) the caller gets
/// a wide one and widens its span to match.
clock_sample narrow_sample(instant (*read_clock)() noexcept) {
    clock_sample best{};
    for (int attempt = 0; attempt < 16; ++attempt) {
        clock_sample s;
        s.cycles_before = cycles();
        s.at = read_clock();
        s.cycles_after = cycles();
        if (attempt == 0 || s.width() < best.width()) best = s;
        if (best.width() < 1'000) break;
    }
    return best;
}

}  // namespace

cycle_rate measure_cycle_rate(instant (*read_clock)() noexcept) {
    using namespace std::chrono_literals;
    const clock_sample start = narrow_sample(read_clock);
    clock_sample end;
    for (;;) {
        end = narrow_sample(read_clock);
        const auto span = end.at - start.at;
        const bool wide_enough =
            end.cycles_before > start.cycles_after &&
            100 * (start.width() + end.width()) <= end.cycles_before - start.cycles_after;
        if (span >= 200us && wide_enough) break;
        if (span >= 50ms) return {0.0, std::numeric_limits<double>::infinity(), 0};
    }
    const double ns = std::chrono::duration<double, std::nano>(end.at - start.at).count();
    const double high = 1.01 * ns / static_cast<double>(end.cycles_before - start.cycles_after);
    return {0.99 * ns / static_cast<double>(end.cycles_after - start.cycles_before), high,
            static_cast<std::uint64_t>(1e6 / high)};
}

namespace {

const cycle_rate& rate() noexcept {
    static const cycle_rate measured = measure_cycle_rate(&steady_now);
    return measured;
}

/// A reading of the cycle counter, then of the monotonic clock: the clock's
/// reading is at or after the counter's (the clock's own read of the
/// counter is ordered after earlier instructions).
struct cycle_reference {
    std::uint64_t cycles = 0;
    std::int64_t ns = 0;
};

cycle_reference take_reference() noexcept {
    cycle_reference r;
    r.cycles = cycles();
    r.ns = steady_now().time_since_epoch().count();
    return r;
}

/// This thread's latest reference, shared by every runtime on the monotonic
/// clock (they read the same one).
[[gnu::tls_model("initial-exec")]] thread_local cycle_reference reference;

/// The processor may read the counter up to a few hundred cycles before the
/// instructions ahead of the read have run.
constexpr std::uint64_t reorder_allowance = 1'024;

}  // namespace
#endif

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
    return steady_now();
}

instant runtime_clock::instant_of_mark(mark m) const noexcept {
#if defined(__x86_64__)
    if (marks_ == mark_kind::cycles) {
        const cycle_rate& r = rate();
        if (r.reference_span == 0) return monotonic_now();  // surely after the mark
        // A call marked at `m` happened before the counter read `end`.
        const std::uint64_t end = m + reorder_allowance;
        cycle_reference& ref = reference;
        if (end - ref.cycles > r.reference_span && ref.cycles - end > r.reference_span)
            ref = take_reference();  // none within a millisecond of the mark
        // From the reference, counting the cycles in between as long ones
        // after it and as short ones before it: never before `end`.
        // (Rounded up after it, down before it.)
        if (end >= ref.cycles)
            return instant(
                duration(ref.ns +
                         static_cast<std::int64_t>(static_cast<double>(end - ref.cycles) *
                                                   r.ns_per_cycle_high) +
                         1));
        return instant(duration(
            ref.ns -
            static_cast<std::int64_t>(static_cast<double>(ref.cycles - end) * r.ns_per_cycle_low)));
    }
#endif
    return instant(duration(static_cast<std::int64_t>(m)));
}

runtime_clock::mark runtime_clock::mark_before(instant t) const noexcept {
    const std::int64_t t_ns = t.time_since_epoch().count();
#if defined(__x86_64__)
    if (marks_ == mark_kind::cycles) {
        const cycle_rate& r = rate();
        if (r.reference_span == 0) return 0;
        cycle_reference& ref = reference;
        ref = take_reference();
        if (t_ns <= ref.ns) return 0;
        // Counted in long cycles: every mark below comes before `t`. At most
        // a second ahead, as far as the rate's measurement is trusted.
        const std::uint64_t ahead_ns = std::min<std::uint64_t>(
            static_cast<std::uint64_t>(t_ns) - static_cast<std::uint64_t>(ref.ns), 1'000'000'000);
        return ref.cycles +
               static_cast<std::uint64_t>(static_cast<double>(ahead_ns) / r.ns_per_cycle_high);
    }
#endif
    // Marks are the clock's nanoseconds: `t` itself is exact. Virtual time
    // moves only when the runtime moves it, so that is all it needs; on the
    // monotonic clock the answer keeps the contract of the cycle marks (0
    // once `t` is past, at most a second ahead).
    if (virtual_) return t_ns > 0 ? static_cast<mark>(t_ns) : 0;
    const std::int64_t now_ns = monotonic_now().time_since_epoch().count();
    if (t_ns <= now_ns) return 0;
    return static_cast<mark>(std::min<std::int64_t>(t_ns, now_ns + 1'000'000'000));
}

void runtime_clock::advance_to(instant t) noexcept {
    const std::int64_t to = t.time_since_epoch().count();
    std::int64_t at = virtual_ns_.load(std::memory_order_relaxed);
    while (to > at && !virtual_ns_.compare_exchange_weak(at, to, std::memory_order_acq_rel)) {
    }
}

}  // namespace rtkit::detail
