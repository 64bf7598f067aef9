#pragma once
// The workers of one runtime and what they share.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "activity_board.hpp"
#include "idle_workers.hpp"
#include "mpsc_queue.hpp"
#include "remote_request.hpp"
#include "rtkit/detail/io_driver.hpp"
#include "rtkit/metrics.hpp"
#include "rtkit/runtime_config.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "runtime_clock.hpp"

namespace rtkit::detail {

class worker;
class blocking_pool;
class trace_recorder;

/// The workers of a runtime, their handles, and what they share: the reactor,
/// the injector that takes work from threads driving none of them, the
/// parking bookkeeping that decides which worker to unpark, and the shutdown
/// flag. The current-thread flavor has one worker, which takes injected work
/// through its own inbox; the multi-thread flavor has N, which take it from
/// the shared injector and steal from each other.
class worker_group {
  public:
    enum class flavor { current_thread, multi_thread };

    /// `huge_pages`: the workers' task memory asks for transparent huge pages
    /// (runtime_config::huge_pages). `time`: which clock the runtime reads.
    worker_group(flavor f, std::shared_ptr<io_driver> io, bool huge_pages = false,
                 runtime_clock::kind time = runtime_clock::kind::monotonic);
    /// Retires every worker (see retire()) before the reactor goes.
    ~worker_group();
    worker_group(const worker_group&) = delete;
    worker_group& operator=(const worker_group&) = delete;

    /// Adds a worker (while the runtime is being built), binding its timer
    /// driver to the runtime's clock. Throws std::invalid_argument when the
    /// clock is virtual and the driver cannot bind to it.
    worker& add_worker(std::shared_ptr<timer_driver> timers, std::shared_ptr<lane_policy> lanes);
    /// Records trace events from now on (before the first add_worker): opens
    /// the file, throws std::runtime_error when it cannot.
    void start_trace(const trace_config& config);
    /// The trace, or null when the runtime does not trace.
    trace_recorder* tracer() const noexcept { return trace_.get(); }
    /// The runtime's one clock (any thread).
    runtime_clock& clock() noexcept { return clock_; }
    const runtime_clock& clock() const noexcept { return clock_; }
    /// What each worker is doing (runtime::activity(); any thread).
    const std::shared_ptr<activity_board>& activity() const noexcept { return activity_; }
    flavor kind() const noexcept { return flavor_; }
    bool huge_pages() const noexcept { return huge_pages_; }
    std::size_t size() const noexcept { return workers_.size(); }
    worker& worker_at(std::size_t i) const noexcept { return *workers_[i]; }
    /// Whether workers steal from each other (more than one worker), so each
    /// worker's lanes need a lock.
    bool steals() const noexcept { return workers_.size() > 1; }
    /// Whether several threads may call the reactor (the multi-thread flavor:
    /// its workers, and block_on roots on other threads), so it needs a lock.
    bool io_shared() const noexcept { return flavor_ == flavor::multi_thread; }

    // --- Work from outside (any thread). ---

    /// Queues a task (its scheduled bit won) from a thread that drives none of
    /// the workers, and unparks a worker to run it if none is awake to see it.
    /// Not a local task of a multi-thread worker: handle::route sends those
    /// to their worker.
    void inject(task_header* task) noexcept;
    /// The multi-thread injector: takes up to `max` tasks (any worker; one at
    /// a time, the others skip it). Returns how many went into `out`.
    std::size_t take_injected(schedulable** out, std::size_t max) noexcept;
    bool injector_looks_empty() const noexcept { return injector_.looks_empty(); }
    /// Held by a thread from before it takes spawned tasks out of the
    /// injector or an inbox until they are admitted into a store, so that
    /// spawns_in_flight() sees them in between.
    class admission {
      public:
        explicit admission(worker_group& group) noexcept : group_(group) {
            group_.admitting_.fetch_add(1, std::memory_order_seq_cst);
        }
        ~admission() { group_.admitting_.fetch_sub(1, std::memory_order_seq_cst); }
        admission(const admission&) = delete;
        admission& operator=(const admission&) = delete;

      private:
        worker_group& group_;
    };

    /// After a worker queued new work locally: if every other worker is
    /// parked and none is looking for work, unparks one to come and steal.
    void notify_work_available() noexcept;
    idle_workers& idle() noexcept { return idle_; }

    // --- The reactor. ---

    io_driver& io() noexcept { return *io_; }
    /// Serialises reactor calls: the reactor is called by one thread at a
    /// time. In the current-thread flavor that is the thread driving the
    /// worker, and this is a no-op; with several workers it is the io
    /// driver's reactor lock (io_driver::lock_calls), and on release a parked
    /// worker is woken to block in the reactor when none does.
    class io_lock {
      public:
        explicit io_lock(worker_group& group);
        ~io_lock();
        io_lock(const io_lock&) = delete;
        io_lock& operator=(const io_lock&) = delete;

      private:
        worker_group& group_;
        bool locked_ = false;
    };
    /// Polls the reactor (serialised as io_lock does, except that it gives up
    /// rather than wait when another worker is in the reactor and `timeout`
    /// is zero). Returns how many registrations became ready.
    std::size_t poll_io(duration timeout);
    /// Counts registered descriptors: while there are any, busy workers also
    /// poll the reactor now and then, and an idle one is never left resting.
    void io_registered(int delta) noexcept {
        io_registrations_.fetch_add(delta, std::memory_order_relaxed);
    }
    bool has_io() const noexcept { return io_registrations_.load(std::memory_order_relaxed) > 0; }

    // --- The blocking pool (rtkit/blocking.hpp), set while the runtime is built. ---

    /// How long a current-thread worker with nothing to run polls the reactor
    /// before it sleeps (worker::poll_before_parking): runtime_config's at
    /// first, then runtime::set_poll_before_park's. Any thread may set it; the
    /// worker reads it each time it runs out of work (relaxed: a new time
    /// holds from the worker's next look, with no order to other writes).
    /// Taken within 0..1 s (the configuration's range).
    void set_poll_before_park(std::chrono::microseconds d) noexcept {
        const auto kept = std::clamp<std::chrono::microseconds>(d, std::chrono::microseconds{0},
                                                                std::chrono::seconds{1});
        poll_before_park_.store(duration(kept).count(), std::memory_order_relaxed);
    }
    duration poll_before_park() const noexcept {
        return duration(poll_before_park_.load(std::memory_order_relaxed));
    }
    void set_blocking_pool(std::shared_ptr<blocking_pool> pool) noexcept {
        blocking_ = std::move(pool);
    }
    blocking_pool& blocking() const noexcept { return *blocking_; }

    // --- Shutdown and retirement. ---

    bool shutting_down() const noexcept { return shutting_down_.load(std::memory_order_relaxed); }
    /// The same, read by a parking worker's last look, after it announced
    /// where it waits (multi_thread_driver::park). Shutdown writes the flag,
    /// then reads where each worker waits (unpark_all); the worker writes
    /// where it waits, then reads the flag: seq_cst on all four, so that one
    /// side sees the other's write. With weaker orders both reads may miss
    /// (each write still in its CPU's store buffer), and the worker sleeps
    /// with no timer while shutdown joins it.
    bool shutdown_begun_for_parker() const noexcept {
        return shutting_down_.load(std::memory_order_seq_cst);
    }
    void begin_shutdown() noexcept;
    /// Unparks every worker (shutdown).
    void unpark_all() noexcept;
    /// How many tasks are alive in all stores (a snapshot, any thread).
    std::size_t live_tasks() const noexcept;
    /// True when some worker's lanes hold an entry (a snapshot, any thread).
    bool lanes_hold_entries() const noexcept;
    /// True when some worker's lanes may give a thief something
    /// (worker::may_give_to_thieves; a snapshot, any thread).
    bool lanes_may_give_to_thieves() const noexcept;
    /// True when some worker's inbox may hold a task or a request (a
    /// snapshot, any thread).
    bool inboxes_hold_items() const noexcept;
    /// True when spawned tasks may wait in the injector or an inbox (any
    /// thread); for tasks on their way from there into a store it waits a
    /// little. Checked before live_tasks(), a false answer means every spawn
    /// so far is in a store.
    bool spawns_in_flight() const noexcept;
    /// How many tasks have finished in all stores (a snapshot, any thread).
    std::uint64_t finished_tasks() const noexcept;
    // --- Metrics. ---

    /// A task woken by a thread that drives no worker (counted here: such a
    /// thread has no counters of its own; the wake is costly anyway).
    void count_outside_wake() noexcept { wakes_outside_.fetch_add(1, std::memory_order_relaxed); }
    /// A worker's maintenance turn: remembers the most tasks alive so far.
    void note_alive_tasks() noexcept;
    /// Adds the workers' counters and the group's gauges to `into`
    /// (runtime::metrics(); any thread).
    void collect(runtime_metrics& into) const;

    /// Cancels every live task and drives the workers on this thread until
    /// they have unwound (bounded): no other thread may drive any of them now.
    /// Tasks that never unwind (local tasks of other threads, tasks that
    /// ignore cancellation) are reported and leaked rather than destroyed
    /// under their feet; so is every task when the reactor is bound to
    /// another thread (io_driver::claim_for_this_thread).
    void retire() noexcept;

  private:
    friend struct worker_group_test_access;  // a litmus test of the shutdown handshake

    flavor flavor_;
    std::shared_ptr<io_driver> io_;
    bool huge_pages_;
    std::atomic<duration::rep> poll_before_park_{0};
    /// Before the workers: their timer drivers read it until they go.
    runtime_clock clock_;
    /// Before the workers, which hold their slots.
    std::shared_ptr<activity_board> activity_ = std::make_shared<activity_board>();
    /// Before the workers, whose rings it holds: finished once they are gone.
    std::unique_ptr<trace_recorder> trace_;
    std::vector<std::unique_ptr<worker>> workers_;
    mpsc_queue<schedulable, task_link> injector_;
    sync::detail::spin_lock injector_consumer_;  ///< one worker takes from it at a time
    std::atomic<std::size_t> next_target_{0};    ///< round robin for local-free injection
    idle_workers idle_;
    std::atomic<long> io_registrations_{0};
    std::atomic<int> admitting_{0};  ///< threads inside an admission
    std::atomic<bool> shutting_down_{false};
    bool retired_ = false;
    std::atomic<std::uint64_t> wakes_outside_{0};
    /// Tasks handed in from threads that drive no worker (inject()).
    std::atomic<std::uint64_t> injected_{0};
    mutable std::atomic<std::uint64_t> peak_alive_{0};
    std::shared_ptr<blocking_pool> blocking_;
};

}  // namespace rtkit::detail
