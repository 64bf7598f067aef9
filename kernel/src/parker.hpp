#pragma once
// Where a worker waits when it has nothing to run, and how another thread
// ends that wait.
#include <atomic>
#include <functional>

#include "rtkit/detail/io_driver.hpp"
#include "rtkit/time.hpp"

namespace rtkit::detail {

/// The wait state of one worker. The worker publishes where it is about to
/// wait (seq_cst), then looks for work once more, then waits; unpark() reads
/// the state (seq_cst) after its work was published. So either the worker sees
/// the work, or unpark() sees the worker waiting and ends the wait.
class parker {
  public:
    enum state : int {
        running = 0,     ///< dispatching: it sees new work before it waits
        in_reactor = 1,  ///< blocked in the reactor: reactor::wake() ends it
        on_futex = 2,    ///< blocked on the state word: a futex wake ends it
        resting = 3,     ///< not driven at all (current-thread flavor between calls)
    };

    explicit parker(io_driver& io) noexcept : io_(io) {}

    /// Worker side: publishes where it is about to wait.
    void announce(state s) noexcept { state_.store(s, std::memory_order_seq_cst); }
    /// Worker side: back to running (after the wait, or when work showed up).
    void clear() noexcept { state_.store(running, std::memory_order_relaxed); }
    state current() const noexcept {
        return static_cast<state>(state_.load(std::memory_order_seq_cst));
    }

    /// Worker side, after announce(on_futex) and a last look for work: blocks
    /// until unpark() or `timeout` (negative: no limit).
    void wait_on_futex(duration timeout) noexcept;

    /// Any thread: ends the worker's wait, wherever it is; nothing while it runs.
    void unpark() noexcept;

    /// Called by unpark() while the worker rests with its driver.
    std::function<void()> on_wake_resting;

  private:
    io_driver& io_;
    std::atomic<int> state_{running};
};

}  // namespace rtkit::detail
