#pragma once
// The poller's side of timeout scopes.
#include "rtkit/detail/task_extras.hpp"

namespace rtkit::detail {

/// Arms the timers of the task's open timeout scopes that are not armed yet.
/// Called after a poll that left the task suspended.
void arm_timeouts(task_header& task, task_extras& extras);

/// After a poll that left `task` suspended: arm what its timeout scopes need.
/// Acquire: another thread (a cancellation request) may have just installed
/// the extras, and its writes to them must be seen before they are read.
inline void after_suspending_poll(task_header& task) {
    if (task_extras* extras = task.extras())
        if (extras->timeouts) arm_timeouts(task, *extras);
}

}  // namespace rtkit::detail
