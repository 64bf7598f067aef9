#pragma once
// Helpers shared by the sync primitive tests.
#include <atomic>
#include <functional>

#include <doctest/doctest.h>

#include "rtkit/rtkit.hpp"
#include "rtkit/sync/all.hpp"

namespace rtkit::sync::test {

/// Yields (each yield of a block_on root gives the worker one dispatch turn)
/// until `done()` holds; fails the test after `max_yields`.
inline task<void> yield_until(std::function<bool()> done, int max_yields = 10000) {
    for (int i = 0; i < max_yields && !done(); ++i)
        co_await yield_now();
    CHECK(done());
}

/// Lets every spawned task that is runnable now take a few turns.
inline task<void> let_others_run(int yields = 16) {
    for (int i = 0; i < yields; ++i)
        co_await yield_now();
}

/// Counts live instances, to prove that nothing is leaked or lost.
struct tracked {
    static inline std::atomic<int> live{0};
    int value;
    explicit tracked(int v) : value(v) { ++live; }
    tracked(tracked&& other) noexcept : value(other.value) { ++live; }
    tracked& operator=(tracked&&) = default;
    ~tracked() { --live; }
};

}  // namespace rtkit::sync::test
