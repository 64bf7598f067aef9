#include "scheduler.hpp"

#include "thread_context.hpp"
#include "worker.hpp"

namespace rtkit::detail {

void root_signal::notify() noexcept {
    if (woken.exchange(true, std::memory_order_seq_cst)) return;
    woken.notify_all();  // a root polled off the worker waits on the flag itself
    if (sched) sched->unpark();
}

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
    if (park.load(std::memory_order_seq_cst) != dispatching) unpark();
}

void scheduler::take_remote(std::vector<remote_item>& out) {
    std::lock_guard lock(remote_mutex_);
    remote_pending_.store(false, std::memory_order_relaxed);
    out.swap(remote_);
}

void scheduler::unpark() noexcept {
    if (park.load(std::memory_order_seq_cst) == resting) {
        if (on_wake_resting) on_wake_resting();
    } else {
        io_.wake();
    }
}

}  // namespace rtkit::detail
