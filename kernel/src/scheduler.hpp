#pragma once
// The thread-safe side of a runtime's scheduling: where wakes and spawns from
// threads that do not hold the worker go, and how the worker is unparked.
#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/timer_driver.hpp"

namespace rtkit::detail {

class worker;

/// Work handed to the worker by a thread that does not hold it.
struct remote_item {
    enum class kind : std::uint8_t { run, admit, arm_timer, cancel_timer, cancel_region };
    kind what;
    void* target;  ///< a task_header*, a remote_timer* or a region_node*
};

/// A timer armed from a thread that does not hold the worker: the worker arms
/// (and maybe cancels) it in its own timer driver when it drains the request.
struct remote_timer {
    std::atomic<int> refs{2};  ///< the sleeping awaiter and the queued request
    instant deadline;
    waker to_wake;
    timer_handle handle = 0;  ///< set by the worker when armed
    void release() noexcept {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
};

/// One per runtime. Every method may be called from any thread.
class scheduler {
  public:
    /// Where the worker's holder is: dispatching, blocked in the reactor, or not
    /// driving it at all (handed back idle to the driver, see current_thread_driver).
    enum park_state : int { dispatching = 0, in_reactor = 1, resting = 2 };

    scheduler(reactor& io, timer_driver& timers) noexcept : io_(io), timers_(timers) {}

    /// The runtime's single worker; set once at start.
    void set_home(worker* w) noexcept { home_ = w; }
    worker* home() const noexcept { return home_; }

    /// Makes `task` runnable; the caller won the task's scheduled bit.
    void schedule(task_header* task);
    /// Queues `item` for the worker and unparks it.
    void submit(remote_item item);
    /// Moves the queued remote items into `out`. Worker holder only.
    void take_remote(std::vector<remote_item>& out);
    bool remote_pending() const noexcept { return remote_pending_.load(std::memory_order_seq_cst); }

    /// Ends the worker's idle wait, wherever it is; nothing while it dispatches.
    void unpark() noexcept;
    std::atomic<int> park{dispatching};
    /// Called by unpark() while the worker rests with the driver.
    std::function<void()> on_wake_resting;

    instant now() const noexcept { return timers_.now(); }
    reactor& io() const noexcept { return io_; }

    std::atomic<bool> shutting_down{false};

  private:
    reactor& io_;
    timer_driver& timers_;
    worker* home_ = nullptr;
    std::mutex remote_mutex_;
    std::vector<remote_item> remote_;
    std::atomic<bool> remote_pending_{false};
};

}  // namespace rtkit::detail
