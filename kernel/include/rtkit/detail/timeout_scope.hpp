#pragma once
// How cx::timeout runs. Included by cx.hpp.
#include <optional>

#include "rtkit/cx.hpp"
#include "rtkit/detail/task_extras.hpp"

namespace rtkit::detail {

/// One active timeout of a task, innermost first in task_extras::timeouts.
/// Lives in the frame of run_timeout. Its timer is armed lazily, by the poller,
/// the first time the task suspends inside the scope (see arm_timeouts), so an
/// operation that completes at once never touches the timer driver.
struct timeout_state {
    timeout_state* outer = nullptr;
    instant deadline;
    /// Shared with the armed timer's waker (null until armed).
    struct armed_timer* timer = nullptr;
    timer_ticket ticket;
};

/// Opens a timeout scope on the current task.
void push_timeout(timeout_state& scope);
/// Closes it: disarms its timer. Returns true if the deadline fired, and clears
/// the task's timeout bit when no other open scope of the task has fired.
bool pop_timeout(timeout_state& scope) noexcept;

template <class T>
task<std::optional<T>> run_timeout(instant deadline, task<T> inner) {
    timeout_state scope;
    scope.deadline = deadline;
    push_timeout(scope);
    std::optional<T> value;
    try {
        value = co_await std::move(inner);
    } catch (const task_cancelled&) {
        // Our deadline, or a cancellation from outside (or an outer deadline)?
        if (!pop_timeout(scope) ||
            (current_task()->state.load(std::memory_order_acquire) & task_state::interrupted))
            throw;
        co_return std::nullopt;
    } catch (...) {
        pop_timeout(scope);
        throw;
    }
    pop_timeout(scope);
    co_return value;
}

inline task<bool> run_timeout_void(instant deadline, task<void> inner) {
    timeout_state scope;
    scope.deadline = deadline;
    push_timeout(scope);
    try {
        co_await std::move(inner);
    } catch (const task_cancelled&) {
        if (!pop_timeout(scope) ||
            (current_task()->state.load(std::memory_order_acquire) & task_state::interrupted))
            throw;
        co_return false;
    } catch (...) {
        pop_timeout(scope);
        throw;
    }
    pop_timeout(scope);
    co_return true;
}

}  // namespace rtkit::detail
