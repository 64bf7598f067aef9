// The runtime clock's marks: the cheap note a timeout takes when it is called,
// turned into an instant only when the timeout arms a timer.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime_clock.hpp"

using namespace rtkit;
using namespace std::chrono_literals;
using detail::runtime_clock;

namespace {

/// Reads `clock` before and after a mark and after its conversion, `rounds`
/// times, with a busy span of `hold` between the mark and the conversion.
/// Returns how many conversions fell outside [before the mark, after the
/// conversion] and the least amount by which one came after the mark (the
/// thread may be preempted in any round, which only makes it later).
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
        if (converted < before || converted > after) ++result.outside;
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
