// A task that throws and whose outcome nobody takes fails its region
// (region_node.hpp): how the region keeps such tasks until its owner decides.
#include <mutex>
#include <utility>

#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

bool region_node::keep_failed(task_header& task) noexcept {
    std::lock_guard guard(failed_lock);
    try {
        failed_tasks.push_back(&task);
    } catch (...) {
        return false;
    }
    task.add_ref();
    return true;
}

void region_node::tell_closer_of_failure() noexcept {
    // The failed task has not left yet, so the region cannot drain
    // meanwhile: a published closer stays in place while it is woken.
    if (word.load(std::memory_order_acquire) & closer_set) closer.wake_by_ref();
}

std::exception_ptr region_node::take_unhandled_failure() noexcept {
    std::exception_ptr failure;
    std::lock_guard guard(failed_lock);
    std::erase_if(failed_tasks, [&](task_header* task) {
        // While another reference exists, a join may be taking the outcome
        // right now: only a task held by the region alone can be looked at.
        if (task_state::refs_of(task->state.load(std::memory_order_acquire)) != 1) return false;
        std::exception_ptr& left = task->extras()->unobserved_failure;
        const bool owned = task->state.load(std::memory_order_relaxed) & task_state::outcome_owned;
        if (left && !owned && !failure) {
            failure = std::exchange(left, nullptr);
        } else if (left && !owned) {
            return false;  // a later failure: the next call, or the diagnostics hook
        }
        task->release();  // the last reference: the frame goes
        return true;
    });
    return failure;
}

void region_node::release_failed() noexcept {
    std::vector<task_header*> kept;
    {
        std::lock_guard guard(failed_lock);
        kept.swap(failed_tasks);
    }
    for (task_header* task : kept)
        task->release();
}

}  // namespace rtkit::detail
