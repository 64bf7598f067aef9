// The handle: where every piece of work for a runtime enters, and the one
// place that decides "this thread drives a worker of this runtime: act on it"
// or "elsewhere: hand it over lock-free and unpark a worker if one is parked".
#include "rtkit/detail/handle.hpp"

#include <unistd.h>

#include <optional>
#include <thread>

#include "frame_sizes.hpp"
#include "outside_wakes.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "task_wake.hpp"
#include "thread_context.hpp"
#include "trace_recorder.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

namespace {

/// What a wake did to a task's state (claim_queue).
enum class claimed : std::uint8_t {
    queue,     ///< the caller won the right to queue it
    notified,  ///< it was running: its worker polls it again
    nothing,   ///< already queued or notified, or finished
};

/// Wins the right to queue `task`, marking it `queued_as` (scheduled, or
/// running for a task requeued as a yield does); or records the wake where
/// it is enough: a running task is marked notified, a queued one needs
/// nothing, a finished one ignores wakes.
claimed claim_queue(task_header* task, std::uint64_t queued_as) noexcept {
    using namespace task_state;
    RTKIT_CHAOS_POINT(task_state_changing);
    std::uint64_t s = task->state.load(std::memory_order_acquire);
    for (;;) {
        if (s & (complete | scheduled)) return claimed::nothing;
        const std::uint64_t next = s | ((s & running) ? notified : queued_as);
        if (next == s) return claimed::nothing;  // already notified
        if (task->state.compare_exchange_weak(s, next, std::memory_order_acq_rel))
            return (s & running) ? claimed::notified : claimed::queue;
    }
}

/// Counts a wake of `task` made on this thread, which drives `here` (a
/// worker of the task's runtime, or of another runtime: wake() says when) or
/// no worker (null; such a wake is counted in: outside_wakes.hpp).
void count_wake(handle* here, task_header* task) noexcept {
    if (!here) {
        task->home().group().count_outside_wake();
        return;
    }
    worker_counters& counters = here->owner().counters();
    (task->admitted_by == here->index() ? counters.wakes_same_worker : counters.wakes_other_worker)
        .add();
}

/// Marks the task being polled on this thread, if any, as a spawner: its
/// next queueing then goes behind what it spawned (task_state::spawner). A
/// block_on root is never queued, so it is left alone. The first spawn of a
/// poll pays the locked instruction; the rest see the mark.
[[gnu::always_inline]] inline void mark_spawner() noexcept {
    task_header* const parent = current_task();
    if (!parent) return;
    const std::uint64_t s = parent->state.load(std::memory_order_relaxed);
    if (!(s & (task_state::spawner | task_state::root)))
        parent->state.fetch_or(task_state::spawner, std::memory_order_relaxed);
}

/// Puts a new task in `region` and sets its state, with `bits` besides.
/// It is queued as a yielding one is requeued: already `running`, so its
/// first poll needs no locked state transition (a wake before it only marks
/// it notified, which costs at most one more poll). Nobody else can see the
/// task yet; its joiner may once it is queued. A region cancelled before or
/// after this is seen at the task's first poll (worker::start_first_poll).
/// Inlined: every spawn runs it.
[[gnu::always_inline]] inline void start_in(region_node& region, task_header* task,
                                            std::uint64_t bits) {
    task->set_region(&region);
    region.enter();
    task->start_with_state(task_state::running | bits);
    mark_spawner();
}

/// Where the calling thread's trace records go: the ring of the worker it
/// drives (`here`, of the traced runtime), or the trace's outside buffer.
void record_here(trace_recorder& trace, handle* here, trace_record r) noexcept {
    if (here) {
        here->owner().trace()->record(r);
        return;
    }
    try {
        trace.record_outside(r);
    } catch (...) {
        // Out of memory: the record is lost.
    }
}

/// Records a wake of `task` that queued it or marked it to be polled again,
/// made on this thread, which drives `here` (null: no worker of any
/// runtime; the wake is counted in, so the task's runtime may be read), and
/// leaves the wake's flow id in the task for the poll it causes.
void trace_wake(task_header* task, handle* here) noexcept {
    task_extras* extras = task->extras();
    if (!extras) return;  // not spawned through a traced spawn
    trace_record r;
    r.kind = trace_kind::wake;
    r.task = extras->id.load(std::memory_order_relaxed);
    if (current_task() == task) r.detail = trace_wake_self;
    if (here) {
        // Not the task's runtime: a running task may complete meanwhile, so
        // the wake goes into the trace of the runtime `here` belongs to.
        trace_ring& ring = *here->owner().trace();
        r.a = ring.next_flow_id();
        r.ts = ring.now();
        r.detail |= task->admitted_by == here->index() ? trace_wake_from::same_worker
                                                       : trace_wake_from::other_worker;
        extras->trace_flow.store(r.a, std::memory_order_relaxed);
        ring.record(r);
        return;
    }
    trace_recorder* trace = task->home().group().tracer();
    if (!trace) return;
    try {
        r.a = trace->next_outside_flow_id();
        r.ts = trace->now();
        r.detail |= trace_wake_from::outside;
        extras->trace_flow.store(r.a, std::memory_order_relaxed);
        trace->record_outside(r);
    } catch (...) {
        // Out of memory: the wake goes unrecorded.
    }
}

/// Whether a wake made on a thread driving `here` (or none) may be traced:
/// by the runtime `here` belongs to; for a thread driving none, trace_wake
/// asks the task's runtime.
inline bool wake_traced(handle* here) noexcept {
    return !here || here->tracing();
}

}  // namespace

instant handle::now() const noexcept {
    return worker_->now();
}

void handle::set_poll_before_park(std::chrono::microseconds d) noexcept {
    group_->set_poll_before_park(d);
}

std::chrono::microseconds handle::poll_before_park() const noexcept {
    return std::chrono::duration_cast<std::chrono::microseconds>(group_->poll_before_park());
}

bool handle::may_call_reactor_here() const noexcept {
    return group_->io_shared() || driven_here();
}

io_token handle::register_io(int fd, interest what) {
    if (!may_call_reactor_here())
        throw no_runtime_error(
            "I/O needs the runtime's worker: run it in a task, or in a block_on root that drives "
            "the worker (another thread drives it now)");
    worker_group::io_lock lock(*group_);
    const io_token token = group_->io().add(fd, what);
    group_->io_registered(+1);
    return token;
}

void handle::close_io(io_registration& registration, int fd) noexcept {
    if (!may_call_reactor_here()) {
        // The thread driving the worker may be blocked in the reactor now:
        // the worker does both when it carries out the request.
        worker_->send_request(new remote_request{remote_request::kind::close_descriptor,
                                                 new pending_close{std::move(registration), fd}});
        return;
    }
    registration.reset();
    ::close(fd);
}

namespace {

/// Sets a block_on root's wake flag and tells its caller.
void wake_root(task_header* root) noexcept {
    using namespace task_state;
    // The flag lives in the root's own state word, which a waker keeps alive.
    if (root->state.fetch_or(root_woken, std::memory_order_seq_cst) & (root_woken | complete))
        return;
    root->state.notify_all();  // a caller polling it off the worker waits on the word
    RTKIT_CHAOS_POINT(root_woken);
    worker_group& group = root->home().group();
    // A current-thread caller driving the worker may be parked in it.
    if (group.kind() == worker_group::flavor::current_thread)
        group.worker_at(0).park_state().unpark();
}

/// The wake, on a thread driving `here` (null: no worker of any runtime).
void wake(task_header* task, handle* here) noexcept {
    using namespace task_state;
    if (here && worker::is_suspended_in_batch(task)) {
        // Suspended in this batch, still marked running: the thread driving
        // its worker requeues it as is (only that worker lists it); any other
        // marks it notified below.
        if (!here->group().steals() && here->owner().requeue_if_suspended_here(task)) {
            if (here->tracing()) trace_wake(task, here);
            return;
        }
    }
    // A thread driving a worker of another runtime counts itself in before it
    // publishes the task (outside_wakes.hpp). It reads the task's runtime to
    // find that out, while the task is not complete: a root, which it checks
    // first, or a task it claimed, which cannot run before it is published.
    const auto elsewhere = [here](task_header* t) {
        return here && &here->group() != &t->home().group();
    };
    std::optional<outside_wake> counted;
    if (const std::uint64_t s = task->state.load(std::memory_order_acquire); s & root) {
        if (s & complete) return;
        if (elsewhere(task)) counted.emplace();
        wake_root(task);
        return;
    }
    switch (claim_queue(task, scheduled)) {
        case claimed::queue:
            if (elsewhere(task)) counted.emplace();
            if (wake_traced(here)) [[unlikely]]
                trace_wake(task, here);
            task->home().schedule(task);
            break;
        case claimed::notified:
            // The task was running and may now complete at any time: a thread
            // not counted in must not read its runtime any more. A worker of
            // another runtime counts the wake as one of its own.
            count_wake(here, task);
            if (wake_traced(here)) [[unlikely]]
                trace_wake(task, here);
            break;
        case claimed::nothing:
            break;
    }
}

}  // namespace

void wake_task(task_header* task) noexcept {
    handle* here = driving();
    if (!here) {
        // No worker is driven here (a std::thread, a multi_thread block_on
        // caller): count in before anything of the task is read.
        outside_wake counted;
        wake(task, nullptr);
        return;
    }
    wake(task, here);
}

bool handle::driven_at_any_depth(const worker_group& group) noexcept {
    for (const scoped_driving* s = scoped_driving::innermost(); s; s = s->outer())
        if (s->driven() && s->driven()->group_ == &group) return true;
    return false;
}

// Inlined into schedule(): every wake that queues a task comes through here.
[[gnu::always_inline]] inline void handle::route(task_header* task, handle* here) noexcept {
    if (task->state.load(std::memory_order_relaxed) & task_state::local) [[unlikely]] {
        const task_extras& extras = *task->extras();
        // Its home worker; null with one worker, which is every task's home.
        handle* const home = extras.local_home;
        if (home && home != here) {
            home->worker_->send_task(task);
            return;
        }
        if (here && extras.local_owner != std::this_thread::get_id()) {
            here->worker_->hold_for_owner(task);
            return;
        }
    }
    if (!here) {
        group_->inject(task);
        return;
    }
    here->worker_->push(task);
    if (group_->steals()) group_->notify_work_available();
}

void handle::route(task_header* task) noexcept {
    route(task, driven_here());
}

void handle::schedule(task_header* task) noexcept {
    handle* const here = driven_here();
    count_wake(here, task);
    route(task, here);
}

bool wake_if_polled_here(task_header* task) noexcept {
    // A root may be polled by its caller off the worker, so it never qualifies.
    if (task->state.load(std::memory_order_relaxed) & task_state::root) return false;
    handle* here = task->home().driven_here();
    // With thieves around, another worker could take the task and run it
    // before the caller is done with it.
    if (!here || here->group().steals()) return false;
    worker& w = here->owner();
    if (w.requeue_if_suspended_here(task)) {
        if (here->tracing()) trace_wake(task, here);
        return true;
    }
    // Queue it already marked running, as a yield requeues: the worker then
    // skips the scheduled -> running transition, one locked instruction less
    // per wake. Wakes while it waits in the queue only mark it notified.
    if (claim_queue(task, task_state::running) == claimed::queue) {
        w.counters().wakes_same_worker.add();  // the one worker
        if (here->tracing()) trace_wake(task, here);
        w.push(task);
    }
    return true;
}

namespace {
/// What a spawn does once it is traced: admits the task here, or hands it
/// to the runtime.
[[gnu::always_inline]] inline void start_spawn(handle& h, region_node& region, task_header* task) {
    start_in(region, task, 0);
    if (handle* here = h.driven_here()) {
        here->owner().admit(task);
        if (h.group().steals()) h.group().notify_work_available();
    } else {
        h.group().inject(task);
    }
}
}  // namespace

void handle::spawn(region_node& region, task_header* task) {
    if (tracing_) [[unlikely]]
        trace_spawn(task, nullptr);
    start_spawn(*this, region, task);
}

void handle::spawn_named(region_node& region, task_header* task, const task_name& name) {
    if (tracing_) [[unlikely]]
        trace_spawn(task, &name);
    start_spawn(*this, region, task);
}

void handle::trace_spawn(task_header* task, const task_name* name) {
    trace_recorder& trace = *group_->tracer();
    task_extras& extras = task->get_extras();
    if (name) {
        extras.trace_name = trace.intern(name->name);
        if (!name->file.empty())
            extras.trace_site =
                trace.intern(std::string(name->file) + ':' + std::to_string(name->line));
    }
    // Its wakers are counted from now on (lost_wakes.hpp); nobody else sees it yet.
    task->state.fetch_or(task_state::traced, std::memory_order_relaxed);
    trace_record r;
    r.kind = trace_kind::spawn;
    r.task = task->id().raw;
    r.b = noted_frame_size(task->frame().address());
    task_header* parent = current_task();
    r.a = parent ? parent->id().raw : 0;
    r.name = extras.trace_name;
    r.site = extras.trace_site;
    r.ts = trace.now();
    record_here(trace, driven_here(), r);
}

void handle::trace_region(std::uint64_t region, bool open) noexcept {
    trace_record r;
    r.kind = open ? trace_kind::region_open : trace_kind::region_close;
    r.a = region;
    r.ts = group_->tracer()->now();
    record_here(*group_->tracer(), driven_here(), r);
}

void handle::spawn_local(region_node& region, task_header* task) {
    handle* here = driven_here();
    if (!here)
        throw no_runtime_error(
            "spawn_local needs this thread to drive one of the runtime's workers: call it from a "
            "task, or from a block_on root that drives the worker (current_thread)");
    task_extras& extras = task->get_extras();
    extras.local_owner = std::this_thread::get_id();
    if (group_->kind() == worker_group::flavor::multi_thread) extras.local_home = here;
    if (tracing_) [[unlikely]]
        trace_spawn(task, nullptr);
    start_in(region, task, task_state::local);
    here->worker_->admit(task);
}

timer_ticket handle::arm_timer(instant deadline, waker w) {
    if (handle* here = driven_here())
        return timer_ticket{here, here->worker_->arm_timer(deadline, std::move(w)), nullptr};
    // Off the workers: this handle's worker arms it when it drains the request.
    auto* timer = new remote_timer(deadline, std::move(w));  // the ticket's reference
    timer->add_ref();                                        // the request's
    try {
        worker_->send_request(new remote_request{remote_request::kind::arm_timer, timer});
    } catch (...) {
        timer->release();
        timer->release();
        throw;
    }
    return timer_ticket{this, 0, timer};
}

void handle::cancel_timer(timer_ticket& ticket) noexcept {
    handle* owner = ticket.owner;
    if (!owner) return;
    if (!ticket.remote && owner->is_driven_here()) {
        owner->worker_->cancel_timer(ticket.id);
        return;
    }
    // Another thread armed it, or the task moved on to another worker: ask the
    // owner to disarm it. The request takes over the ticket's reference.
    remote_timer* remote = std::exchange(ticket.remote, nullptr);
    try {
        auto* request = new remote_request{remote_request::kind::cancel_timer, remote};
        request->timer = ticket.id;
        owner->worker_->send_request(request);
    } catch (...) {
        // Out of memory: the timer fires later and wakes nothing harmful.
        if (remote) remote->release();
    }
}

void handle::finish_timer(timer_ticket& ticket) noexcept {
    if (ticket.remote) std::exchange(ticket.remote, nullptr)->release();
}

void handle::request_cancel(task_header* task, cancel_reason reason) {
    // From a thread that drives no worker: the task may finish once it is
    // woken below, and this runtime be destroyed before the promotion after
    // it is done (outside_wakes.hpp).
    std::optional<outside_wake> counted;
    if (!driving()) counted.emplace();
    set_cancel_reason(*task, std::move(reason));
    if (task->state.fetch_or(task_state::cancel_requested, std::memory_order_acq_rel) &
        (task_state::complete | task_state::cancel_requested))
        return;
    if (tracing_) [[unlikely]] {
        trace_record r;
        r.kind = trace_kind::cancel;
        r.task = traced_id(task);
        r.ts = group_->tracer()->now();
        record_here(*group_->tracer(), driven_here(), r);
    }
    // Idle: queued into the cancel lane now. Running: polled again at once.
    waker w = task->make_waker();
    w.wake();
    // Waiting in a ready lane: moved to its worker's cancel lane, so that it
    // unwinds promptly however many ready tasks are ahead of it.
    // Not in a ready lane: nowhere, already in the cancel lane, or among its
    // worker's just-suspended tasks (the wake above requeued it, or will).
    const std::optional<std::uint16_t> where = worker::in_ready_lane_of(task);
    if (!where) return;
    worker& w_lanes = group_->worker_at(*where);
    if (w_lanes.get_handle().is_driven_here()) {
        w_lanes.promote(task);
        return;
    }
    task->add_ref();  // the request's
    try {
        w_lanes.send_request(new remote_request{remote_request::kind::promote, task});
    } catch (...) {
        task->release();  // out of memory: it unwinds when its turn comes
    }
}

void handle::cancel_region(region_node& region, cancel_reason reason) {
    auto* mine = new cancel_reason(std::move(reason));
    cancel_reason* none = nullptr;
    if (!region.reason.compare_exchange_strong(none, mine, std::memory_order_acq_rel)) delete mine;
    // Marked already: by an earlier call, or by a cancellation of a region
    // above it, whose look at the stores covered this region's tasks too
    // (and a task that starts later sees the mark at its first poll).
    const bool marked_before = region.cancelled.exchange(true, std::memory_order_acq_rel);
    if (!marked_before) region.cancel_below();
    // A task cancelling a region it is in sees it in this very poll: its
    // store, which the walks below look at, may be another worker's, which
    // handles the request later. Its own region's mark says so in one look
    // (a walk up from it would make a chain of N nested regions cost N^2).
    if (task_header* self = current_task();
        self && !(self->state.load(std::memory_order_relaxed) & task_state::cancel_requested))
        if (region_node* in = self->region(); in && in->is_cancelled())
            request_cancel(self, in->cancel_reason_or_default());
    if (marked_before) return;
    // Each worker finds the region's tasks in its own store.
    for (std::size_t i = 0; i < group_->size(); ++i) {
        worker& w = group_->worker_at(i);
        if (w.get_handle().is_driven_here()) {
            w.cancel_region_tasks(region);
            continue;
        }
        // Keeps the region open until that worker has handled it; a region
        // that drained meanwhile (its owner cancelling it as its last task
        // left) has no tasks left to cancel.
        if (!region.try_enter()) return;
        try {
            w.send_request(new remote_request{remote_request::kind::cancel_region, &region});
        } catch (...) {
            region.leave();
            throw;
        }
    }
}

}  // namespace rtkit::detail
