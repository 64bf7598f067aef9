#include "worker.hpp"

#include <algorithm>
#include <cstdio>

#include "rtkit/join_handle.hpp"
#include "thread_context.hpp"
#include "timeouts.hpp"

namespace rtkit::detail {

namespace {
/// How many idle-returning dispatch rounds a retiring worker gives cancelled
/// tasks to unwind before it gives up on the ones that keep running.
constexpr int retire_rounds = 1000;
/// A draining worker busy with runnable tasks looks at the clock every this
/// many polls.
constexpr unsigned drain_deadline_check_interval = 16;
}  // namespace

worker::worker(scheduler& sched, std::shared_ptr<reactor> io, std::shared_ptr<timer_driver> timers,
               std::shared_ptr<lane_policy> lanes)
    : sched_(sched), io_(std::move(io)), timers_(std::move(timers)), lanes_(std::move(lanes)) {
    now_ = timers_->now();
}

worker::~worker() {
    scoped_worker holder(this, &sched_);
    drain_remote();
    // Cancel and unwind: every task sees task_cancelled at its next await point.
    // Shutdown is set, so run_loop_until would not dispatch; turn by hand.
    for (int round = 0; round < retire_rounds && store_.size() > 0; ++round) {
        store_.for_each([](task_header* t) {
            if (!(t->state.load(std::memory_order_relaxed) & task_state::cancel_requested))
                request_cancel(t, cancel_reason{"runtime shut down"});
        });
        while (run_once()) {
        }
        drain_remote();
        fire_due_timers();
    }
    if (store_.size() > 0) {
        // Local tasks of other threads can only be polled by their owners, and a
        // task that swallows cancellation and never awaits again cannot be
        // unwound: such frames are leaked rather than destroyed under their feet.
        std::fprintf(stderr,
                     "rtkit: %zu task(s) could not be unwound at shutdown (local tasks of other "
                     "threads, or tasks that ignore cancellation); leaked\n",
                     store_.size());
    }
}

void worker::admit(task_header* task) {
    task->id = store_.insert(task);
    if (task->state.load(std::memory_order_relaxed) & task_state::local)
        ++local_counts_[task->extras.load(std::memory_order_relaxed)->local_owner];
    lanes_->push(task, lane::ready, {});
}

std::size_t worker::local_tasks_of(std::thread::id owner) const {
    auto found = local_counts_.find(owner);
    return found == local_counts_.end() ? 0 : found->second;
}

void worker::rescue_stranded() {
    if (stranded_.empty()) return;
    const std::thread::id me = std::this_thread::get_id();
    std::erase_if(stranded_, [&](task_header* t) {
        if (t->extras.load(std::memory_order_relaxed)->local_owner != me) return false;
        lanes_->push(t, lane::ready, {});
        return true;
    });
}

bool worker::run_once() {
    if (++tick_ == maintenance_interval || sched_.remote_pending()) maintain();
    schedulable* next = lanes_->pop(now_);
    if (!next) return false;
    execute(static_cast<task_header*>(next));
    return true;
}

void worker::maintain() {
    const bool busy_turn = tick_ >= maintenance_interval;
    tick_ = 0;
    drain_remote();
    fire_due_timers();
    // A busy worker still picks up I/O readiness every interval.
    if (busy_turn && has_io()) io_->poll(duration{0});
}

void worker::drain_remote() {
    if (!sched_.remote_pending()) return;
    sched_.take_remote(remote_batch_);
    for (const remote_item& item : remote_batch_) {
        switch (item.what) {
            case remote_item::kind::run:
                push_ready(static_cast<task_header*>(item.target));
                break;
            case remote_item::kind::admit:
                admit(static_cast<task_header*>(item.target));
                break;
            case remote_item::kind::arm_timer: {
                auto* t = static_cast<remote_timer*>(item.target);
                if (t->to_wake) t->handle = arm_timer(t->deadline, std::move(t->to_wake));
                t->release();
                break;
            }
            case remote_item::kind::cancel_region: {
                auto* region = static_cast<region_node*>(item.target);
                cancel_region_tasks(*region);
                region->leave();
                break;
            }
            case remote_item::kind::cancel_timer: {
                auto* t = static_cast<remote_timer*>(item.target);
                if (t->handle) cancel_timer(t->handle);
                t->release();
                break;
            }
        }
    }
    remote_batch_.clear();
}

void worker::fire_due_timers() {
    if (armed_timers_ == 0) return;
    std::optional<instant> next = timers_->next_deadline();
    if (!next) return;
    now_ = timers_->now();
    if (*next <= now_) armed_timers_ -= std::min(armed_timers_, timers_->fire(now_));
}

bool worker::has_runnable() {
    // Queued work counts even if it is a timed task not yet due: that errs on
    // the side of driving the worker once more.
    if (lanes_->size() > 0 || sched_.remote_pending()) return true;
    if (armed_timers_ == 0) return false;
    std::optional<instant> next = timers_->next_deadline();
    return next && *next <= timers_->now();
}

std::optional<instant> worker::next_deadline() const noexcept {
    std::optional<instant> timer = armed_timers_ ? timers_->next_deadline() : std::nullopt;
    std::optional<instant> timed = lanes_->size() ? lanes_->next_deadline() : std::nullopt;
    if (timer && timed) return std::min(*timer, *timed);
    return timer ? timer : timed;
}

void worker::execute(task_header* task) {
    using namespace task_state;
    if ((task->state.load(std::memory_order_relaxed) & local) &&
        task->extras.load(std::memory_order_relaxed)->local_owner != std::this_thread::get_id()) {
        stranded_.push_back(task);  // only its owner may poll it
        return;
    }
    if (task->requeued_running)
        task->requeued_running = false;  // still `running` since it yielded
    else  // scheduled -> running (only the winner of the scheduled bit queues a task)
        task->state.fetch_xor(scheduled | running, std::memory_order_acq_rel);
    {
        scoped_task polling(task, &sched_);
        if (!task->leaf_ready || task->leaf_ready(task->leaf)) {
            task->leaf_ready = nullptr;
            task->resume_point.resume();
        }
    }
    if (task->finished) {
        complete(task);
        return;
    }
    after_suspending_poll(*task);
    if (task->yielded) {
        task->yielded = false;
        task->requeued_running = true;
        lanes_->push(task, lane::ready, {});
        return;
    }
    std::uint32_t s = task->state.load(std::memory_order_relaxed);
    std::uint32_t next;
    do {  // running -> idle, or back to scheduled if woken while running
        next = (s & notified) ? (s & ~(running | notified)) | scheduled : s & ~running;
    } while (!task->state.compare_exchange_weak(s, next, std::memory_order_acq_rel));
    if (s & notified) lanes_->push(task, lane::ready, {});
}

void worker::run_until_drained(instant deadline) {
    unsigned polls = 0;
    auto drained = [this] {
        return store_.size() == 0 || sched_.shutting_down.load(std::memory_order_relaxed);
    };
    while (!drained()) {
        if (run_once()) {
            if (++polls % drain_deadline_check_interval == 0 && now() >= deadline) return;
            continue;
        }
        maintain();
        if (has_runnable()) continue;
        if (now() >= deadline) return;
        park(drained, deadline);
    }
}

void worker::complete(task_header* task) {
    store_.remove(task->id);
    if (task->state.load(std::memory_order_relaxed) & task_state::local) {
        auto found = local_counts_.find(task->extras.load(std::memory_order_relaxed)->local_owner);
        if (--found->second == 0) local_counts_.erase(found);
    }
    std::uint32_t prev = task->state.fetch_or(task_state::complete, std::memory_order_acq_rel);
    if (prev & task_state::join_waker)
        std::exchange(task->joiner, nullptr)->adopt_as_waker().wake();
    region_node* region = task->region;
    task->release();  // the scheduler's reference
    region->leave();  // last: may let the region's owner finish and free it
}

}  // namespace rtkit::detail
