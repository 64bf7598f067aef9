#include "worker.hpp"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "lost_wakes.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "thread_context.hpp"
#include "timeouts.hpp"
#include "trace_recorder.hpp"

namespace rtkit::detail {

namespace {
/// A draining worker busy with runnable tasks looks at the clock every this
/// many polls.
constexpr unsigned drain_deadline_check_interval = 16;
task_header* as_task(schedulable* s) noexcept {
    return static_cast<task_header*>(s);
}
// An entry the lanes just gave back (under the lanes lock): a task's own
// entry is no longer where a promotion looks. Returns the entry's state
// word, which tells a stand-in from a task (task_leaving_lane).
[[gnu::always_inline]] inline std::uint64_t left_lanes(schedulable* entry) noexcept {
    const std::uint64_t state =
        static_cast<lane_entry*>(entry)->state.load(std::memory_order_relaxed);
    if (!(state & task_state::stand_in)) {
        std::atomic<std::uint16_t>& where = as_task(entry)->lanes_of;
        // Unless this is a stale own entry of a task that ran from its
        // stand-in and has suspended since: it keeps its suspended slot.
        if ((where.load(std::memory_order_relaxed) & worker::where_kind) != worker::in_suspended)
            where.store(task_header::not_in_lanes, std::memory_order_relaxed);
    }
    return state;
}
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
      shared_(false),
      store_(group.huge_pages()),
      activity_(group.activity()->slot(index)) {}

worker::~worker() = default;

void worker::lock_from_now() noexcept {
    shared_ = true;
}

// --- Lanes. With thieves around (several workers), every call on the policy
// is made under lanes_lock_. ---

// The dispatch path (run_once, execute) inlines the pop, as it does the
// push (inline in the header): a yield goes through both.
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

void worker::take_in(task_header* task) {
    if (task->admitted_by == task_header::not_admitted)
        admit(task);
    else
        push(task);
}

void worker::promote(task_header* task) noexcept {
    if (shared_) lanes_lock_.lock();
    // Only a task in this worker's ready lane: it may have run, been stolen
    // or been promoted since the request was made. Its entry stays there; a
    // stand-in joins the cancel lane, and whichever comes out first runs it.
    if (task->lanes_of.load(std::memory_order_relaxed) == index_) {
        if (schedulable* twin = make_twin(task)) {
            lanes_->push(twin, lane::cancel);
            count_push();
            task->lanes_of.store(index_ | in_cancel_lane, std::memory_order_relaxed);
        }
    }
    if (shared_) lanes_lock_.unlock();
}

std::size_t worker::steal_into(task_header** out, std::size_t max) noexcept {
    RTKIT_CHAOS_POINT(stealing);
    if (!lanes_lock_.try_lock()) return 0;  // its owner is at it: try another victim
    const std::size_t queued_before = lanes_->size();
    const std::size_t want = std::min({max, (queued_before + 1) / 2, max_steal});
    // What goes to the thief: the first `given` of the last batch taken.
    schedulable* entries[max_steal];
    std::uint64_t states[max_steal];
    std::size_t given = 0;
    // Local tasks run only here. Those the policy hands out are set aside,
    // linked through the entry that left the lanes, and queued again below,
    // so that the thief reaches the tasks behind them: up to max_steal
    // entries in all, which bounds the time the lock is held. (Should that
    // many local tasks come first, thieves get nothing until the next push.)
    schedulable* kept_head = nullptr;
    schedulable** kept_tail = &kept_head;
    std::size_t seen = 0;
    std::size_t kept = 0;
    while (given == 0 && seen < std::min(queued_before, max_steal)) {
        const std::size_t taken = lanes_->steal(entries, std::min(want, max_steal - seen));
        if (taken == 0) break;
        seen += taken;
        for (std::size_t i = 0; i < taken; ++i) {
            schedulable* const entry = entries[i];
            const std::uint64_t state = left_lanes(entry);
            if (!is_local_task_entry(entry, state)) {
                entries[given] = entry;  // given <= i
                states[given++] = state;
            } else if (task_leaving_lane(entry, state)) {
                entry->lane_next = nullptr;
                *kept_tail = entry;
                kept_tail = &entry->lane_next;
                ++kept;
            }
        }
    }
    for (schedulable* entry = kept_head; entry;) {
        schedulable* const next = entry->lane_next;
        queue_held(task_of_entry(entry));
        entry = next;
    }
    // One store: the owner reads the count without the lock, and must not
    // see its lanes empty while they hold what was kept.
    queued_.store(queued_.load(std::memory_order_relaxed) - seen + kept, std::memory_order_relaxed);
    // Nothing for thieves: none asks here again until the next push.
    if (given == 0) thieves_refused_.store(true, std::memory_order_relaxed);
    lanes_lock_.unlock();
    std::size_t tasks = 0;
    for (std::size_t i = 0; i < given; ++i)
        if (task_header* task = task_leaving_lane(entries[i], states[i])) out[tasks++] = task;
    return tasks;
}

// --- Registration. ---

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

[[gnu::always_inline]] inline void worker::forget(task_header* task) noexcept {
    if (shared_) store_lock_.lock();
    store_.remove(task->store_index);
    if (task->state.load(std::memory_order_relaxed) & task_state::local) {
        auto found = local_counts_.find(task->extras()->local_owner);
        if (--found->second == 0) local_counts_.erase(found);
    }
    if (shared_) store_lock_.unlock();
}

void worker::keep(task_header* task) noexcept {
    if (shared_) store_lock_.lock();
    store_.keep(task);
    if (shared_) store_lock_.unlock();
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

std::size_t worker::local_tasks_of(std::thread::id owner) const {
    auto found = local_counts_.find(owner);
    return found == local_counts_.end() ? 0 : found->second;
}

void worker::rescue_stranded() {
    if (stranded_.empty()) return;
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

// --- Timers. ---

// Each call of the timer driver is marked on the activity board, which then
// names a plugin that does not return.

timer_handle worker::arm_timer(instant deadline, waker w) {
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_insert);
    const timer_handle id = timers_->insert(deadline, std::move(w));
    ++armed_timers_;
    counters_.timers_armed.add();
    if (trace_) trace_timer(static_cast<std::uint8_t>(trace_kind::timer_arm));
    return id;
}

void worker::cancel_timer(timer_handle id) noexcept {
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_cancel);
    if (timers_->cancel(id)) {
        --armed_timers_;
        counters_.timers_cancelled.add();
        if (trace_) trace_timer(static_cast<std::uint8_t>(trace_kind::timer_cancel));
    }
}

void worker::fire_due_timers() {
    if (armed_timers_ == 0) return;
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_fire);
    const std::optional<instant> next = timers_->next_deadline();
    if (!next) return;
    const instant now = clock_.now();
    if (*next > now) return;
    const std::size_t fired = timers_->fire(now);
    armed_timers_ -= std::min(armed_timers_, fired);
    counters_.timers_fired.add(fired);
    if (trace_ && fired) {
        trace_record r;
        r.kind = trace_kind::timer_fire;
        r.ts = trace_->now();
        r.a = fired;
        trace_->record(r);
    }
}

std::optional<instant> worker::next_deadline() const noexcept {
    if (armed_timers_ == 0) return std::nullopt;
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_next_deadline);
    return timers_->next_deadline();
}

// --- The inbox. ---

void worker::send_task(task_header* task) noexcept {
    tasks_in_.push(entry_to_queue(task));
    RTKIT_CHAOS_POINT(inbox_pushed);
    parker_.unpark();
}

void worker::send_request(remote_request* request) noexcept {
    requests_in_.push(request);
    RTKIT_CHAOS_POINT(inbox_pushed);
    parker_.unpark();
}

void worker::drain_inbox() {
    RTKIT_CHAOS_POINT(queue_popping);
    if (!tasks_in_.looks_empty()) {
        worker_group::admission taking(group_);
        // One worker: whatever its inbox holds came from outside (inject()).
        const bool injected = group_.kind() == worker_group::flavor::current_thread;
        while (schedulable* s = tasks_in_.pop()) {
            if (injected) counters_.injected_taken.add();
            take_in(task_of_entry(s));
        }
        group_.note_alive_tasks();
    }
    while (remote_request* r = requests_in_.pop()) {
        RTKIT_CHAOS_POINT(inbox_request);
        carry_out(*r);
        delete r;
    }
}

void worker::drop_timers() noexcept {
    timers_.reset();
    armed_timers_ = 0;
}

bool worker::discard_requests() noexcept {
    bool any = false;
    while (remote_request* r = requests_in_.pop()) {
        any = true;
        // Release what the request holds, as carrying it out would have.
        switch (r->what) {
            case remote_request::kind::arm_timer:
            case remote_request::kind::cancel_timer:
                if (r->target) static_cast<remote_timer*>(r->target)->release();
                break;
            case remote_request::kind::cancel_region:
                static_cast<region_node*>(r->target)->leave();
                break;
            case remote_request::kind::promote:
                static_cast<task_header*>(r->target)->release();
                break;
            case remote_request::kind::close_descriptor: {
                // The reactor goes next, with all it holds: just close.
                auto* closing = static_cast<pending_close*>(r->target);
                closing->registration.abandon();
                ::close(closing->fd);
                delete closing;
                break;
            }
        }
        delete r;
    }
    return any;
}

void worker::carry_out(remote_request& request) {
    switch (request.what) {
        case remote_request::kind::arm_timer: {
            auto* t = static_cast<remote_timer*>(request.target);
            if (!t->cancelled) t->id = arm_timer(t->deadline, std::move(t->to_wake));
            t->release();
            break;
        }
        case remote_request::kind::cancel_timer: {
            auto* t = static_cast<remote_timer*>(request.target);
            if (!t) {
                cancel_timer(request.timer);
            } else {
                if (t->id)
                    cancel_timer(t->id);
                else
                    t->cancelled = true;  // the arm comes later: skip it
                t->release();
            }
            break;
        }
        case remote_request::kind::cancel_region: {
            auto* region = static_cast<region_node*>(request.target);
            cancel_region_tasks(*region);
            region->leave();
            break;
        }
        case remote_request::kind::promote: {
            auto* task = static_cast<task_header*>(request.target);
            promote(task);
            task->release();
            break;
        }
        case remote_request::kind::close_descriptor: {
            auto* closing = static_cast<pending_close*>(request.target);
            closing->registration.reset();
            ::close(closing->fd);
            delete closing;
            break;
        }
    }
}

// --- Dispatch. ---

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
    if (trace_ && events) {
        trace_record r;
        r.kind = trace_kind::io_ready;
        r.ts = trace_->now();
        r.a = events;
        trace_->record(r);
    }
    return events;
}

bool worker::has_runnable() {
    if (queued() > 0 || tasks_in_.has_items() || requests_in_.has_items()) return true;
    if (armed_timers_ == 0) return false;
    const std::optional<instant> next = next_deadline();
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
    if (task->state.load(std::memory_order_relaxed) & local) {
        task_extras* extras = task->extras();
        if (extras->local_owner != std::this_thread::get_id()) {
            // Only its owner may poll it: a worker thread of its own gets it
            // back at once; a block_on caller finds it at its next call.
            if (extras->local_home && extras->local_home != &handle_)
                extras->local_home->owner().send_task(task);
            else
                stranded_.push_back(task);
            return;
        }
    }
    // scheduled -> running (only the winner of the scheduled bit queues a
    // task), unless it was queued still `running`: new, yielded, or woken by
    // its own worker's thread. Only its poller changes that bit.
    if (!(task->state.load(std::memory_order_relaxed) & running))
        task->state.fetch_xor(scheduled | running, std::memory_order_acq_rel);
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
        yielded ? push(task) : after_suspend(task);
        throw;
    }
    if (yielded) {
        push(task);  // still `running`
        return;
    }
    after_suspend(task);
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
    // unless a joiner waits, whose wake needs the task alive until it is made.
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
    if (task_header* joiner = task->extras()->joiner.exchange(nullptr, std::memory_order_acq_rel)) {
        RTKIT_CHAOS_POINT(joiner_taken);
        joiner->adopt_as_waker().wake();
    }
    task->release();  // the store's reference
    if (kept_failed) region->tell_closer_of_failure();
    region->leave();
}

// --- Trace points (runtime_config::trace), out of the hot paths. ---

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

void worker::trace_end(task_header* task) noexcept {
    trace_record r;
    r.kind = trace_kind::end;
    r.ts = trace_->now();
    r.task = traced_id(task);
    // outcome_slot's tags: 1 a value, 2 an error, 3 cancelled, 4 panicked.
    r.detail = task->outcome_tag == 3   ? trace_outcome::cancelled
               : task->outcome_tag == 4 ? trace_outcome::panicked
                                        : trace_outcome::completed;
    trace_->record(r);
}

void worker::trace_timer(std::uint8_t kind) noexcept {
    trace_record r;
    r.kind = static_cast<trace_kind>(kind);
    r.ts = trace_->now();
    r.task = traced_id(current_task());
    trace_->record(r);
}

std::int64_t worker::trace_now() const noexcept {
    return trace_->now();
}

void worker::trace_park(std::int64_t began) noexcept {
    trace_counters();
    trace_record r;
    r.kind = trace_kind::park;
    r.ts = began;
    r.dur = trace_->now() - began;
    trace_->record(r);
}

void worker::trace_counters() noexcept {
    trace_record r;
    r.kind = trace_kind::counters;
    r.ts = trace_->now();
    r.a = group_.live_tasks();
    r.b = queued();
    trace_->record(r);
}

}  // namespace rtkit::detail
