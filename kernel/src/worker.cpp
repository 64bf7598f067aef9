// A worker's construction and its dispatch: the batch loop that pops a task
// from the lanes and polls it, what happens to the task after its poll
// (suspended, requeued, completed), and the maintenance turn between batches.
#include "worker.hpp"

#include <algorithm>
#include <utility>

#include "lost_wakes.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "thread_context.hpp"
#include "timeouts.hpp"
#include "trace_recorder.hpp"
#include "worker_group.hpp"
#include "worker_run_loop.hpp"

namespace rtkit::detail {

namespace {
/// A draining worker busy with runnable tasks looks at the clock every this
/// many polls.
constexpr unsigned drain_deadline_check_interval = 16;
}  // namespace

worker::worker(worker_group& group, std::uint16_t index, std::shared_ptr<timer_driver> timers,
               std::shared_ptr<lane_policy> lanes)
    : group_(group),
      clock_(group.clock()),
      index_(index),
      handle_(group, *this, index),
      parker_(group.io()),
      timers_(std::move(timers)),
      lanes_(std::move(lanes)),
      deferred_lanes_(static_cast<lanes_deferred*>(lanes_->query_interface(lanes_deferred_name))),
      shared_(false),
      store_(group.huge_pages()),
      activity_(group.activity()->slot(index)) {}

worker::~worker() = default;

void worker::lock_from_now() noexcept {
    shared_ = true;
}

// The dispatch path (run_once, execute) inlines the pop, as it does the
// push (inline in the header): a yield goes through both. With thieves
// around (several workers), every call on the policy is made under
// lanes_lock_.
[[gnu::always_inline]] inline task_header* worker::pop_lanes() noexcept {
    for (;;) {
        RTKIT_CHAOS_POINT(lanes_popping);
        if (shared_) lanes_lock_.lock();
        schedulable* const next = lanes_->pop();
        std::uint64_t state = 0;
        if (next) {
            state = left_lanes(next);
            if (state & (task_state::stand_in | task_state::cancel_requested))
                counters_.cancel_lane_dispatches.add();
            queued_.store(queued_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
        }
        if (shared_) lanes_lock_.unlock();
        if (!next) return nullptr;
        if (task_header* task = task_leaving_lane(next, state)) return task;
    }
}

void worker::start_first_poll(task_header* task) noexcept {
    // A canceller that walked the store before this keep() has marked what
    // the look below sees; one that walks after finds the task there (the
    // store's lock, when workers share it, orders the two).
    group_.worker_at(task->admitted_by).keep(task);
    if (task->state.load(std::memory_order_relaxed) & task_state::cancel_requested) return;
    // Its region first: cancelled before the runtime began to shut down,
    // or the task was spawned into it cancelled.
    region_node* const in = task->region();
    const bool region_cancelled = in && in->is_cancelled();
    if (!region_cancelled && !group_.shutting_down()) return;
    try {
        set_cancel_reason(*task, region_cancelled ? in->cancel_reason_or_default()
                                                  : cancel_reason{"runtime shut down"});
    } catch (...) {
        // Out of memory for the reason: it unwinds with the default one.
    }
    // Its poller is about to resume it, where it sees this: no wake needed.
    task->state.fetch_or(task_state::cancel_requested, std::memory_order_acq_rel);
}

template <bool traced>
[[gnu::always_inline]] inline bool worker::poll_next() {
    // What other threads sent (the inbox) and due timers wait for the
    // maintenance turn, or for the lanes to run dry: no look at the inbox's
    // shared cache lines on every poll.
    if (++tick_ == maintenance_interval) maintain();
    task_header* next = pop_lanes();
    if (!next) {
        maintain();
        next = pop_lanes();
        if (!next) return false;
    }
    // Counted as it starts: a snapshot taken while this batch runs on sees
    // every poll that woke anyone, and that this worker holds a task.
    counters_.polls.add();
    set_dispatching(true);
    if constexpr (traced)
        execute_traced(next);
    else
        execute(next);
    return true;
}

namespace {
/// Ends a dispatch batch, however it ends (a plugin's error may leave it):
/// no task stays marked running once the worker is left alone, and the
/// worker no longer counts as dispatching (poll_next marks it).
struct settle_at_batch_end {
    explicit settle_at_batch_end(worker& w) noexcept : w(w) {}
    ~settle_at_batch_end() {
        w.settle_suspended();
        w.set_dispatching(false);
    }
    worker& w;
};
}  // namespace

bool worker::run_once() {
    settle_at_batch_end settle(*this);
    return trace_ ? poll_next<true>() : poll_next<false>();
}

std::size_t worker::run_batch(std::size_t limit) {
    settle_at_batch_end settle(*this);
    std::size_t polls = 0;
    if (trace_) [[unlikely]] {
        while (polls < limit && poll_next<true>())
            ++polls;
        return polls;
    }
    while (polls < limit && poll_next<false>())
        ++polls;
    return polls;
}

void worker::maintain() {
    const bool busy_turn = tick_ >= maintenance_interval;
    tick_ = 0;
    settle_suspended();
    drain_inbox();
    fire_due_timers();
    // A busy worker still picks up I/O readiness every interval.
    if (busy_turn && group_.has_io()) poll_reactor(duration{0});
    group_.note_alive_tasks();
    if (trace_) trace_counters();
}

std::size_t worker::poll_reactor(duration timeout) {
    const std::size_t events = group_.poll_io(timeout);
    counters_.reactor_polls.add();
    counters_.reactor_events.add(events);
    if (trace_ && events) trace_count(static_cast<std::uint8_t>(trace_kind::io_ready), events);
    return events;
}

bool worker::timer_due() {
    // What fire_due_timers learned: no timer is due before this mark.
    if (clock_.take_mark() < no_timer_due_below_) return false;
    const std::optional<instant> next = armed_deadline();
    return next && *next <= clock_.now();
}

void worker::run_until_drained(instant deadline) {
    unsigned polls = 0;
    auto drained = [this] { return group_.live_tasks() == 0 || group_.shutting_down(); };
    while (!drained()) {
        if (run_once()) {
            if (++polls % drain_deadline_check_interval == 0 && now() >= deadline) return;
            continue;
        }
        if (has_runnable()) continue;
        if (now() >= deadline) return;
        park(drained, deadline);
    }
}

[[gnu::always_inline]] inline void worker::execute(task_header* task) {
    using namespace task_state;
    if (task->state.load(std::memory_order_relaxed) & local) [[unlikely]]
        if (routed_to_owner(task)) return;
    // scheduled -> running (only the winner of the scheduled bit queues a
    // task), unless it was queued still `running`: new, yielded, or woken by
    // its own worker's thread. Only its poller changes that bit.
    // And a spawner mark from its previous poll goes: this poll sets it anew
    // if it spawns again (only the poller touches that bit).
    const std::uint64_t s = task->state.load(std::memory_order_relaxed);
    const std::uint64_t flip = ((s & running) ? 0 : scheduled | running) | (s & spawner);
    if (flip) task->state.fetch_xor(flip, std::memory_order_acq_rel);
    // Its first poll: from now on it needs a store slot, where shutdown and
    // region cancellation look.
    if (task->store_index == task_store::no_slot) start_first_poll(task);
    bool yielded;
    {
        scoped_task polling(task);
        yielded = task->resume_if_ready();
    }
    if (task->finished()) {
        complete(task);
        return;
    }
    try {
        after_suspending_poll(*task);
    } catch (...) {
        // A timer driver refused a timeout's timer: the error goes to whoever
        // drives this worker, and the task stays an ordinary suspended one
        // that a wake or a cancellation still reaches.
        yielded ? push(task, true) : after_suspend(task);
        throw;
    }
    if (yielded) {
        push(task, true);  // still `running`
        return;
    }
    after_suspend(task);
}

bool worker::routed_to_owner(task_header* task) noexcept {
    if (task->extras()->local_owner == std::this_thread::get_id()) return false;
    handle_.route(task);  // only its owner may poll it
    return true;
}

void worker::after_suspend(task_header* task) noexcept {
    using namespace task_state;
    const std::uint64_t s = task->state.load(std::memory_order_relaxed);
    // One test for both: a traced task's wait is looked at (lost_wakes.hpp).
    if (s & (notified | traced)) [[unlikely]] {
        if (s & traced) note_traced_suspend(*task);
        if (s & notified) {
            mark_idle_or_requeue(task);
            return;
        }
    }
    if (!shared_ && suspended_count_ < suspended_capacity) {
        task->lanes_of.store(static_cast<std::uint16_t>(in_suspended | suspended_count_),
                             std::memory_order_relaxed);
        suspended_[suspended_count_++] = task;
        return;
    }
    mark_idle_or_requeue(task);
}

void worker::mark_idle_or_requeue(task_header* task) noexcept {
    using namespace task_state;
    std::uint64_t s = task->state.load(std::memory_order_relaxed);
    std::uint64_t next;
    RTKIT_CHAOS_POINT(task_state_changing);
    do {  // running -> idle, or requeued still running (as a yield) if a wake marked it
        next = (s & notified) ? s & ~notified : s & ~running;
    } while (!task->state.compare_exchange_weak(s, next, std::memory_order_acq_rel));
    if (s & notified) push(task);
}

void worker::settle_suspended() noexcept {
    if (suspended_count_ == 0) return;
    for (std::size_t i = 0; i < suspended_count_; ++i) {
        task_header* task = std::exchange(suspended_[i], nullptr);
        if (!task) continue;
        task->lanes_of.store(task_header::not_in_lanes, std::memory_order_relaxed);
        mark_idle_or_requeue(task);
    }
    suspended_count_ = 0;
}

void worker::complete(task_header* task) noexcept {
    // Out of the store before anyone learns it finished: a joiner that
    // resumes finds the runtime as quiescent as this task leaves it.
    group_.worker_at(task->admitted_by).forget(task);
    // Rare outcomes only: the store counted the end.
    if (task->outcome_tag != 1) counters_.count_end(task->outcome_tag);
    if (trace_) trace_end(task);
    using task_state::join_waker, task_state::one_ref, task_state::refs_of;
    region_node* const region = task->region();
    // A failure its region's owner may have to take (region_node.hpp).
    const task_extras* const extras = task->extras();
    const bool kept_failed =
        extras && extras->unobserved_failure && region->counted && region->keep_failed(*task);
    // Finished, and the store's reference dropped, in one locked instruction;
    // unless a joiner waits, which must be taken out of the task first.
    RTKIT_CHAOS_POINT(task_state_changing);
    std::uint64_t s = task->state.load(std::memory_order_relaxed);
    while (!(s & join_waker)) {
        if (task->state.compare_exchange_weak(s, (s | task_state::complete) - one_ref,
                                              std::memory_order_acq_rel)) {
            if (refs_of(s) == 1) task->destroy_frame();  // no handle, no waker
            if (kept_failed) region->tell_closer_of_failure();
            region->leave();  // last: may let the region's owner finish and free it
            return;
        }
    }
    RTKIT_CHAOS_POINT(completing_with_joiner);
    task->state.fetch_or(task_state::complete, std::memory_order_acq_rel);
    task_header* const joiner = task->extras()->joiner.exchange(nullptr, std::memory_order_acq_rel);
    // The store's reference goes before the joiner wakes: the joiner, which
    // may run at once on another thread, then frees the frame (and its
    // parameters) when it takes the outcome, never later than that.
    task->release();
    if (joiner) {
        RTKIT_CHAOS_POINT(joiner_taken);
        joiner->adopt_as_waker().wake();
        RTKIT_CHAOS_POINT(joiner_woken);
    }
    if (kept_failed) region->tell_closer_of_failure();
    region->leave();
}

void worker::execute_traced(task_header* task) {
    trace_record r;
    r.kind = trace_kind::poll;
    r.ts = trace_->now();
    if (task_extras* extras = task->extras()) {
        r.task = extras->id.load(std::memory_order_relaxed);
        r.name = extras->trace_name;
        r.site = extras->trace_site;
        r.a = extras->trace_flow.exchange(0, std::memory_order_relaxed);
        note_traced_poll(*extras);
    }
    if (task->state.load(std::memory_order_relaxed) & task_state::cancel_requested) r.detail = 1;
    try {
        execute(task);
    } catch (...) {
        r.dur = trace_->now() - r.ts;
        trace_->record(r);
        throw;
    }
    r.dur = trace_->now() - r.ts;
    trace_->record(r);
}

}  // namespace rtkit::detail
