#pragma once
// What a task's waker does when it fires (defined with the handle, which
// decides where the woken task goes).
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

/// Reschedules `task`: marks a block_on root woken for its caller, or wins
/// the task's scheduled bit and queues it through its handle. Any thread.
void wake_task(task_header* task) noexcept;

}  // namespace rtkit::detail
