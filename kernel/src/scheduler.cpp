#include "scheduler.hpp"

#include "thread_context.hpp"
#include "worker.hpp"

namespace rtkit::detail {

void scheduler::schedule(task_header* task) {
    if (this_thread().active_worker == home_)
        home_->push_ready(task);
    else
        submit({remote_item::kind::run, task});
}

void scheduler::submit(remote_item item) {
    {
        std::lock_guard lock(remote_mutex_);
        remote_.push_back(item);
    }
    remote_pending_.store(true, std::memory_order_seq_cst);
    // Pairs with the worker's park store then remote_pending() load (both seq_cst):
    // either it sees this item, or this sees it parked.
    unpark();
}

void scheduler::take_remote(std::vector<remote_item>& out) {
    std::lock_guard lock(remote_mutex_);
    remote_pending_.store(false, std::memory_order_relaxed);
    out.swap(remote_);
}

void scheduler::unpark() noexcept {
    switch (park.load(std::memory_order_seq_cst)) {
        case resting:
            if (on_wake_resting) on_wake_resting();
            break;
        case in_reactor:
            io_.wake();
            break;
        default:
            break;  // dispatching: it will see the new work before it parks
    }
}

}  // namespace rtkit::detail
