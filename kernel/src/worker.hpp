#pragma once
// The dispatch loop of one worker: admit, pick, poll, fire timers, park.
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "rtkit/detail/region_node.hpp"
#include "rtkit/lane_policy.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/timer_driver.hpp"
#include "scheduler.hpp"
#include "task_store.hpp"

namespace rtkit::detail {

/// A worker owns the runtime's plugin objects and its live tasks. Exactly one
/// thread holds it at a time (the background thread or a block_on caller); the
/// holder is the only one that touches its lanes, timers, reactor and store.
class worker {
  public:
    worker(scheduler& sched, std::shared_ptr<reactor> io, std::shared_ptr<timer_driver> timers,
           std::shared_ptr<lane_policy> lanes);
    /// Retires the worker: cancels every live task and lets them unwind at
    /// their await points (bounded), before the plugins are released.
    ~worker();
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    scheduler& sched() noexcept { return sched_; }
    reactor& io() noexcept { return *io_; }
    /// The timer driver's clock (any use that does not arm or cancel).
    instant now() const noexcept { return timers_->now(); }
    /// Counts descriptors registered with the reactor: while there are any, a
    /// busy worker also polls the reactor, and an idle one is never left resting.
    void io_registered(int delta) noexcept { io_registrations_ += delta; }
    bool has_io() const noexcept { return io_registrations_ > 0; }
    task_store& store() noexcept { return store_; }

    /// Registers a spawned task (already marked scheduled) and makes it runnable.
    void admit(task_header* task);
    /// Makes a registered task runnable (it won its scheduled bit).
    void push_ready(task_header* task) { lanes_->push(task, lane::ready, {}); }
    /// Requests cancellation of every registered task in `region` or below it.
    void cancel_region_tasks(region_node& region);

    /// Live local tasks owned by `owner` (they pin the worker to that thread).
    std::size_t local_tasks_of(std::thread::id owner) const;
    /// Requeues the local tasks of the calling thread that were woken while
    /// another thread held the worker. Called when a thread starts holding it.
    void rescue_stranded();

    /// One dispatch turn: polls at most one task. False when nothing was runnable.
    bool run_once();
    /// Dispatches until `stop()` is true or the runtime shuts down. When nothing
    /// is runnable it fires due timers and then either returns (return_when_idle)
    /// or parks in the reactor until the next deadline or a wake.
    template <class Stop>
    void run_loop_until(Stop&& stop, bool return_when_idle);
    /// Polls `task` once, now, wherever it is queued (or not).
    void execute(task_header* task);
    /// Dispatches until no task is left in the store, the runtime shuts down,
    /// or `deadline` passes: checked when idle, and every few polls in a busy
    /// run (so self-waking tasks cannot hold it). When idle it waits in the
    /// reactor, no later than `deadline`.
    void run_until_drained(instant deadline);

    /// True when some task could run now without waiting (queued work, remote
    /// requests, or due timers).
    bool has_runnable();
    /// The earliest instant something becomes runnable by time alone.
    std::optional<instant> next_deadline() const noexcept;

    /// Arms and disarms timers for tasks polled by this worker's holder. All
    /// arming goes through here, so the worker knows when none is armed and can
    /// skip asking the timer driver on every turn.
    timer_handle arm_timer(instant deadline, waker w) {
        timer_handle h = timers_->insert(deadline, std::move(w));
        ++armed_timers_;
        return h;
    }
    void cancel_timer(timer_handle h) noexcept {
        if (timers_->cancel(h)) --armed_timers_;
    }
    /// Fires the timers that are due now (if any is armed).
    void fire_due_timers();

  private:
    /// Every this many polls, a busy worker also drains remote requests and fires timers.
    static constexpr unsigned maintenance_interval = 61;

    void maintain();
    void drain_remote();
    void complete(task_header* task);
    /// Waits in the reactor for I/O, a wake or the next timer, and no later
    /// than `limit` when there is one.
    template <class Stop>
    void park(Stop& stop, std::optional<instant> limit = std::nullopt);

    scheduler& sched_;
    // Declared before the store so they outlive the tasks' unwinding in ~worker.
    std::shared_ptr<reactor> io_;
    std::shared_ptr<timer_driver> timers_;
    std::shared_ptr<lane_policy> lanes_;
    task_store store_;
    std::vector<remote_item> remote_batch_;
    instant now_{};  ///< clock reading of the last maintenance, for the timed lane
    unsigned tick_ = 0;
    long io_registrations_ = 0;
    std::size_t armed_timers_ = 0;
    /// Local tasks that became runnable while a thread other than their owner
    /// held the worker; each waits here (still marked scheduled, so further
    /// wakes are no-ops) until its owner drives the worker again.
    std::vector<task_header*> stranded_;
    std::unordered_map<std::thread::id, std::size_t> local_counts_;
};

template <class Stop>
void worker::run_loop_until(Stop&& stop, bool return_when_idle) {
    while (!sched_.shutting_down.load(std::memory_order_relaxed) && !stop()) {
        if (run_once()) continue;
        maintain();
        if (has_runnable()) continue;
        if (return_when_idle) {
            // Readiness that already arrived counts as runnable work; waiting for
            // more does not. (A parking worker gets both from one poll.)
            if (has_io() && io_->poll(duration{0}) > 0) continue;
            return;
        }
        park(stop);
    }
}

template <class Stop>
void worker::park(Stop& stop, std::optional<instant> limit) {
    std::optional<instant> deadline = next_deadline();
    if (limit && (!deadline || *limit < *deadline)) deadline = limit;
    duration timeout{-1};
    if (deadline) timeout = std::max(duration{0}, *deadline - timers_->now());
    sched_.park.store(scheduler::in_reactor, std::memory_order_seq_cst);
    if (!sched_.remote_pending() && !stop()) io_->poll(timeout);
    sched_.park.store(scheduler::dispatching, std::memory_order_relaxed);
}

}  // namespace rtkit::detail
