#pragma once
// rtkit::runtime_metrics: what a runtime counts about itself, always on.
#include <cstdint>
#include <vector>

#include "rtkit/time.hpp"

namespace rtkit {

/// What one worker counted since the runtime started. Each worker writes its
/// own counters and nobody else does, so counting costs no locked
/// instruction; a snapshot reads them while the worker runs.
///
/// A block_on root is not a task here: its polls and wakes are not counted
/// (runtime_metrics::roots_running says how many run).
struct worker_metrics {
    // Tasks. A task may end on another worker than the one that admitted it.
    std::uint64_t tasks_spawned = 0;    ///< admitted into this worker's task store
    std::uint64_t tasks_ended = 0;      ///< of those, ended (on any worker)
    std::uint64_t tasks_cancelled = 0;  ///< ended on this worker cancelled
    std::uint64_t tasks_panicked = 0;   ///< ended on this worker by an exception

    // Dispatch.
    std::uint64_t polls = 0;                   ///< task polls made here
    std::uint64_t cancel_lane_dispatches = 0;  ///< of those polls, taken from the cancel lane
    /// Wakes of tasks made by this worker's thread: of a task this worker
    /// admitted, and of one another worker admitted. (Wakes from threads that
    /// drive no worker are runtime_metrics::wakes_outside.)
    std::uint64_t wakes_same_worker = 0;
    std::uint64_t wakes_other_worker = 0;
    std::uint64_t steals = 0;         ///< tasks this worker took from other workers' lanes
    std::uint64_t steal_batches = 0;  ///< steals that brought something
    /// Tasks it took in that threads driving no worker handed over (from the
    /// injector; with one worker, from its inbox).
    std::uint64_t injected_taken = 0;

    // Waiting.
    std::uint64_t parks = 0;           ///< times it waited for work (in the reactor or on a futex)
    duration time_parked{0};           ///< on the runtime's clock
    std::uint64_t reactor_polls = 0;   ///< calls into the reactor's poll, blocking or not
    std::uint64_t reactor_events = 0;  ///< registrations made ready and completions delivered

    // Timers of this worker's timer driver.
    std::uint64_t timers_armed = 0;
    std::uint64_t timers_fired = 0;
    std::uint64_t timers_cancelled = 0;

    /// Now: entries in this worker's lanes.
    std::uint64_t queued = 0;
    /// Now: whether its inbox holds something other threads handed it (a
    /// task another worker woke, a request) that it has not taken in yet.
    bool inbox_pending = false;
    /// Now: whether it runs a dispatch batch (polls tasks, or is between two
    /// polls of one): a task it holds then may be in no queue, even for long
    /// if the system gives its thread no processor meanwhile.
    bool dispatching = false;
};

/// A snapshot of a runtime's counters (runtime::metrics()). Taken while the
/// workers run, it is not one instant, but its task counts always add up:
/// tasks_spawned == tasks_completed + tasks_cancelled + tasks_panicked +
/// tasks_alive.
struct runtime_metrics {
    // Sums over the workers (see worker_metrics for each).
    std::uint64_t tasks_spawned = 0;
    std::uint64_t tasks_completed = 0;
    std::uint64_t tasks_cancelled = 0;
    std::uint64_t tasks_panicked = 0;
    std::uint64_t polls = 0;
    std::uint64_t cancel_lane_dispatches = 0;
    std::uint64_t wakes_same_worker = 0;
    std::uint64_t wakes_other_worker = 0;
    std::uint64_t steals = 0;
    std::uint64_t parks = 0;
    duration time_parked{0};
    std::uint64_t reactor_polls = 0;
    std::uint64_t reactor_events = 0;
    std::uint64_t timers_armed = 0;
    std::uint64_t timers_fired = 0;
    std::uint64_t timers_cancelled = 0;

    /// Tasks woken by threads that drive none of the workers.
    std::uint64_t wakes_outside = 0;
    /// Now: spawned and not ended (admitted into a store; a task spawned from
    /// outside the workers counts once a worker has taken it in).
    std::uint64_t tasks_alive = 0;
    /// The most tasks alive at once, as seen at the workers' maintenance
    /// turns (every 61 polls, and before a worker parks) and at snapshots.
    std::uint64_t tasks_peak_alive = 0;
    /// Now: timers armed and neither fired nor cancelled.
    std::uint64_t timers_pending = 0;
    /// Now: entries in all workers' lanes.
    std::uint64_t queued = 0;
    /// Now: workers whose inbox holds something not taken in yet
    /// (worker_metrics::inbox_pending).
    std::uint64_t inboxes_pending = 0;
    /// Now: workers running a dispatch batch (worker_metrics::dispatching).
    std::uint64_t workers_dispatching = 0;
    /// Now: tasks handed in from threads that drive no worker and not yet
    /// taken by one (the injector; with one worker, its inbox). A local task
    /// woken there goes to its own worker's inbox and is not counted.
    std::uint64_t injection_queue_depth = 0;
    /// Now: block_on calls running.
    std::uint64_t roots_running = 0;
    /// block_on calls on a current_thread runtime that borrowed the worker
    /// reserved for their thread: without a lock, since that thread had
    /// returned it idle and nobody took it since.
    std::uint64_t block_on_reserved_borrows = 0;
    /// Now: descriptors registered with the reactor.
    std::uint64_t io_registrations = 0;

    std::vector<worker_metrics> workers;  ///< one per worker, by index
};

}  // namespace rtkit
