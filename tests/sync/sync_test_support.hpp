#pragma once
// Helpers shared by the sync primitive tests.
#include <atomic>
#include <coroutine>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

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

/// The default configuration, on the multi_thread flavor with `workers` workers.
inline runtime_config multi_thread(int workers) {
    runtime_config c;
    c.flavor = "multi_thread";
    c.workers = workers;
    return c;
}

/// Lets every spawned task that is runnable now take a few turns.
inline task<void> let_others_run(int yields = 16) {
    for (int i = 0; i < yields; ++i)
        co_await yield_now();
}

/// Awaits `inner` (an awaiter, by reference) and raises `suspended` once the
/// awaiting task has really suspended on it: another thread waits for that
/// flag, so its wake goes down the path that wakes a waiting task.
template <class Awaiter>
class flag_when_suspended {
  public:
    flag_when_suspended(Awaiter& inner, std::atomic<bool>& suspended) noexcept
        : inner_(inner), suspended_(suspended) {}
    bool await_ready() { return inner_.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) {
        if constexpr (std::is_void_v<decltype(inner_.await_suspend(h))>) {
            inner_.await_suspend(h);
        } else if (!inner_.await_suspend(h)) {
            return false;
        }
        suspended_.store(true, std::memory_order_release);
        return true;
    }
    decltype(auto) await_resume() { return inner_.await_resume(); }

  private:
    Awaiter& inner_;
    std::atomic<bool>& suspended_;
};

/// A value whose copy throws while `fail_copies` is set (its move never does).
struct copy_may_throw {
    static inline bool fail_copies = false;
    int value;
    explicit copy_may_throw(int v) noexcept : value(v) {}
    copy_may_throw(const copy_may_throw& other) : value(other.value) {
        if (fail_copies) throw std::runtime_error("copy failed");
    }
    /// A moved-from one holds -1, so a value lost to a move shows.
    copy_may_throw(copy_may_throw&& other) noexcept : value(std::exchange(other.value, -1)) {}
    copy_may_throw& operator=(const copy_may_throw& other) {
        if (fail_copies) throw std::runtime_error("copy failed");
        value = other.value;
        return *this;
    }
    copy_may_throw& operator=(copy_may_throw&& other) noexcept {
        value = std::exchange(other.value, -1);
        return *this;
    }
};

/// Counts live instances, to prove that nothing is leaked or lost.
struct tracked {
    static inline std::atomic<int> live{0};
    int value;
    explicit tracked(int v) : value(v) { ++live; }
    tracked(const tracked& other) : value(other.value) { ++live; }
    tracked(tracked&& other) noexcept : value(other.value) { ++live; }
    tracked& operator=(const tracked&) = default;
    tracked& operator=(tracked&&) = default;
    ~tracked() { --live; }
};

}  // namespace rtkit::sync::test
