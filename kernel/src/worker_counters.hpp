#pragma once
// The counters one worker keeps about itself (rtkit::worker_metrics).
#include <cstdint>

#include "owned_count.hpp"
#include "rtkit/metrics.hpp"

namespace rtkit::detail {

/// What a worker counts besides its task store (which counts the tasks it
/// admitted and those that ended). The counters the dispatch loop touches on
/// every task or wake come first, in one cache line.
struct alignas(64) worker_counters {
    owned_count polls;
    owned_count wakes_same_worker;
    /// Tasks that ended here other than with a value (most end with one, and
    /// the store counts every end).
    owned_count ended_err;
    owned_count ended_cancelled;
    owned_count ended_panicked;

    owned_count wakes_other_worker;
    owned_count cancel_lane_dispatches;
    owned_count steals;
    owned_count steal_batches;
    owned_count injected_taken;  ///< see worker_metrics::injected_taken
    owned_count parks;
    owned_count parked_ns;
    owned_count reactor_polls;
    owned_count reactor_events;
    owned_count timers_armed;
    owned_count timers_fired;
    owned_count timers_cancelled;
    /// Tasks looked at by region cancellations (kernel tests check that a
    /// cascade of cancellations looks at each task a bounded number of times).
    owned_count cancel_walk_visits;

    /// Counts the end of a task by its outcome tag (detail::outcome_slot:
    /// outcome<T>::state + 1).
    void count_end(std::uint8_t outcome_tag) noexcept {
        switch (outcome_tag) {
            case 2:
                ended_err.add();
                break;
            case 3:
                ended_cancelled.add();
                break;
            case 4:
                ended_panicked.add();
                break;
            default:
                break;
        }
    }

    /// Copies what this worker counted into `into` (any thread); the task
    /// counts only in part (worker_group::collect adds the store's).
    void read_into(worker_metrics& into) const noexcept {
        into.tasks_cancelled = ended_cancelled.get();
        into.tasks_panicked = ended_panicked.get();
        into.polls = polls.get();
        into.cancel_lane_dispatches = cancel_lane_dispatches.get();
        into.wakes_same_worker = wakes_same_worker.get();
        into.wakes_other_worker = wakes_other_worker.get();
        into.steals = steals.get();
        into.steal_batches = steal_batches.get();
        into.injected_taken = injected_taken.get();
        into.parks = parks.get();
        into.time_parked = duration(static_cast<duration::rep>(parked_ns.get()));
        into.reactor_polls = reactor_polls.get();
        into.reactor_events = reactor_events.get();
        // Ends before arms, as tasks: no more timers ended than armed.
        into.timers_fired = timers_fired.get();
        into.timers_cancelled = timers_cancelled.get();
        into.timers_armed = timers_armed.get();
    }
};

}  // namespace rtkit::detail
