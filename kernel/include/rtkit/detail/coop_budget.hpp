#pragma once
// The cooperative budget: how many await points that complete at once a
// thread passes before the task at the last one lets the others run.
#include <cstdint>

#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

/// Await points that complete at once, on one thread, between two forced
/// yields. Without a bound, a task whose every await is ready (a socket that
/// always has data, a channel that is never empty, a loop on closed
/// channels) would never suspend and hold its worker for ever: the worker's
/// other tasks, timers, I/O and shutdown would wait. tokio's budget is the
/// same size (per poll; this one is per thread, so that starting a poll
/// costs nothing).
inline constexpr std::uint32_t coop_budget = 128;

/// What is left of this thread's budget.
extern __thread std::uint32_t coop_budget_slot __attribute__((tls_model("initial-exec")));

/// Called by an await point of `task` (the task polled on this thread, or
/// null outside a task) whose operation completed in await_ready, or without
/// suspending in await_suspend: true to go on at once; false when the budget
/// is spent (it starts again). Then the awaiter suspends anyway, as a yield
/// (suspend_as_yield), keeping its result for await_resume, so that the task
/// resumes with it after every other ready task of its worker had a turn.
inline bool coop_continue(const task_header* task) noexcept {
    if (!task) return true;  // nothing to requeue: no budget applies
    const std::uint32_t left = coop_budget_slot;
    coop_budget_slot = left > 1 ? left - 1 : coop_budget;
    return left > 1;
}

/// For an awaiter whose operation is complete but whose coop_continue() said
/// false: called from await_suspend, it has the poller requeue the task
/// behind the other ready tasks, like yield_now. The awaiter leaves no leaf
/// check, so the next poll resumes it.
inline void suspend_as_yield() noexcept {
    yield_requested_slot = true;
}

}  // namespace rtkit::detail
