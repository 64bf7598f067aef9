// What a worker's task store holds beyond the slots (task_store.hpp): the
// admission of a spawned task, the local tasks of each thread, and the
// walks over the store that cancel a region's tasks. (A slot's keep and
// forget, on every task's first poll and end, are inline in worker.hpp.)
#include <thread>

#include "rtkit/detail/task_extras.hpp"
#include "worker.hpp"

namespace rtkit::detail {

void worker::admit(task_header* task) {
    if (shared_) store_lock_.lock();
    try {
        store_.admit(task);
        if (task->state.load(std::memory_order_relaxed) & task_state::local)
            ++local_counts_[task->extras()->local_owner];
    } catch (...) {
        if (shared_) store_lock_.unlock();
        throw;
    }
    if (shared_) store_lock_.unlock();
    task->admitted_by = index_;
    push(task);
}

std::size_t worker::local_tasks_of(std::thread::id owner) const {
    auto found = local_counts_.find(owner);
    return found == local_counts_.end() ? 0 : found->second;
}

void worker::hold_for_owner(task_header* task) noexcept {
    try {
        stranded_.push_back(task);
    } catch (...) {
        // Out of memory for the list: queued again, it comes round again.
        push(task);
    }
}

void worker::requeue_stranded() {
    const std::thread::id me = std::this_thread::get_id();
    std::erase_if(stranded_, [&](task_header* t) {
        if (t->extras()->local_owner != me) return false;
        push(t);
        return true;
    });
}

void worker::cancel_region_tasks(region_node& region) {
    const cancel_reason why = region.cancel_reason_or_default();
    // Every region below `region` is marked cancelled too (cancel_below), so
    // one look at each task's region finds them all. A task in a region some
    // other cancellation marked is asked too: it would be anyway.
    for_each_task([&](task_header* t) {
        counters_.cancel_walk_visits.add();
        if (t->state.load(std::memory_order_relaxed) & task_state::cancel_requested) return;
        region_node* const in = t->region();
        if (in && in->is_cancelled()) handle_.request_cancel(t, why);
    });
}

}  // namespace rtkit::detail
