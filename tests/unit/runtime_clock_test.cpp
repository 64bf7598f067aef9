// The runtime clock's marks: the cheap note a timeout takes when it is called,
// turned into an instant only when the timeout arms a timer.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime_clock.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

using namespace rtkit;
using namespace std::chrono_literals;
using detail::runtime_clock;

namespace {

/// Reads `clock` before and after a mark and after its conversion, `rounds`
/// times, with a busy span of `hold` between the mark and the conversion.
/// Returns how many conversions fell outside [before the mark, after the
/// conversion + 50 us] (a conversion from a reference up to a millisecond
/// old may be late by 1% of it) and the least amount by which one came
/// after the mark (the thread may be preempted in any round, which only
/// makes it later).
struct bracket_result {
    int outside = 0;
    duration least_after_mark = duration::max();
};

bracket_result bracket_marks(const runtime_clock& clock, int rounds, duration hold) {
    bracket_result result;
    for (int i = 0; i < rounds; ++i) {
        const instant before = clock.now();
        const runtime_clock::mark m = clock.take_mark();
        const instant after_mark = clock.now();
        while (clock.now() - after_mark < hold) {
        }
        const instant converted = clock.instant_of_mark(m);
        const instant after = clock.now();
        if (converted < before || converted > after + 50us) ++result.outside;
        result.least_after_mark = std::min(result.least_after_mark, converted - after_mark);
    }
    return result;
}

}  // namespace

TEST_CASE("runtime clock: a mark's instant is never before the mark - on every thread at once") {
    // What a timeout relies on not to fire early. Several threads at once, so
    // that some are moved between processors between the mark and its
    // conversion.
    runtime_clock clock(runtime_clock::kind::monotonic);
    std::atomic<int> outside{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] { outside += bracket_marks(clock, 50'000, 0ns).outside; });
    for (auto& t : threads)
        t.join();
    CHECK(outside.load() == 0);
}

TEST_CASE("runtime clock: a mark converted 2ms later still says when it was taken") {
    runtime_clock clock(runtime_clock::kind::monotonic);
    const bracket_result r = bracket_marks(clock, 20, 2ms);
    CHECK(r.outside == 0);
    // Nearer the mark than the conversion: late by the conversion's 1%
    // safety margin (20 us), not by the 2 ms.
    CHECK(r.least_after_mark < 1ms);
}

TEST_CASE("runtime clock: on virtual time a mark is the virtual now") {
    runtime_clock clock(runtime_clock::kind::virtual_time);
    clock.advance_to(instant(5s));
    const runtime_clock::mark m = clock.take_mark();
    clock.advance_to(instant(1h));
    CHECK(clock.instant_of_mark(m) == instant(5s));
}

TEST_CASE("runtime clock: no mark below mark_before(t) is taken at or after t") {
    // What lets a worker skip its timer driver until the next deadline.
    runtime_clock clock(runtime_clock::kind::monotonic);
    for (int round = 0; round < 20; ++round) {
        const instant t = clock.now() + 300us;
        const runtime_clock::mark before_t = clock.mark_before(t);
        for (;;) {
            const instant read = clock.now();
            const runtime_clock::mark m = clock.take_mark();
            if (m >= before_t) {
                // It stops saying "not yet" at most 3% of the wait early.
                CHECK(clock.now() >= t - 9us);
                break;
            }
            REQUIRE(read < t);
        }
    }
    CHECK(clock.mark_before(clock.now() - 1ms) == 0);
    // A second at most: a deadline far away is looked at again before it.
    const runtime_clock::mark far = clock.mark_before(instant::max());
    const runtime_clock::mark in_two_seconds = clock.mark_before(clock.now() + 2s);
    CHECK(far <= in_two_seconds);
}

TEST_CASE("runtime clock: on virtual time mark_before(t) is t") {
    runtime_clock clock(runtime_clock::kind::virtual_time);
    const runtime_clock::mark before = clock.mark_before(instant(5s));
    CHECK(clock.take_mark() < before);
    clock.advance_to(instant(5s) - 1ns);
    CHECK(clock.take_mark() < before);
    clock.advance_to(instant(5s));
    CHECK(clock.take_mark() >= before);
}

#if defined(__x86_64__)
namespace {
/// steady_clock, read slowly: 5 us or 1 ms per read (reads under valgrind
/// take thousands of cycles).
template <int Microseconds>
instant slow_steady_now() noexcept {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::microseconds(Microseconds)) {
    }
    return std::chrono::time_point_cast<duration>(std::chrono::steady_clock::now());
}

/// The counter's rate as bounds taken from readings of `read_clock` around a
/// span of busy time, for comparison.
bool bounds_hold(const detail::cycle_rate& rate, instant (*read_clock)() noexcept) {
    const std::uint64_t c0 = __rdtsc();
    const instant t0 = read_clock();
    const std::uint64_t c1 = __rdtsc();
    while (read_clock() - t0 < 20ms) {
    }
    const std::uint64_t c2 = __rdtsc();
    const instant t1 = read_clock();
    const std::uint64_t c3 = __rdtsc();
    const double ns = static_cast<double>((t1 - t0).count());
    // The real length lies in [ns / (c3 - c0), ns / (c2 - c1)].
    return rate.ns_per_cycle_low <= ns / static_cast<double>(c2 - c1) &&
           rate.ns_per_cycle_high >= ns / static_cast<double>(c3 - c0);
}
}  // namespace

TEST_CASE("runtime clock: the cycle counter is measured against a clock slow to read") {
    // A clock whose reads take over a thousand cycles each once made the
    // measurement wait for ever for a quick one.
    const detail::cycle_rate fast = detail::measure_cycle_rate(&slow_steady_now<0>);
    CHECK(fast.reference_span > 0);
    CHECK(bounds_hold(fast, &slow_steady_now<0>));
    const detail::cycle_rate slow = detail::measure_cycle_rate(&slow_steady_now<5>);
    CHECK(slow.reference_span > 0);
    CHECK(bounds_hold(slow, &slow_steady_now<0>));
    // Too slow to give 1% within 50 ms: nothing known, and that is said.
    const detail::cycle_rate too_slow = detail::measure_cycle_rate(&slow_steady_now<1000>);
    CHECK(too_slow.reference_span == 0);
    CHECK(too_slow.ns_per_cycle_low == 0.0);
}
#endif
