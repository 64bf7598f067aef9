#include "lost_wakes.hpp"

#include "outside_wakes.hpp"
#include "task_wake.hpp"
#include "thread_context.hpp"
#include "trace_recorder.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

namespace {

/// Writes the lost wake-up of `task` into its runtime's trace: into the ring
/// of the worker this thread drives if it is one of that runtime's, else into
/// the trace's buffer for other threads.
void record_lost_wake(task_header& task, const task_extras& extras) noexcept {
    trace_record r;
    r.kind = trace_kind::lost_wake;
    r.task = extras.id.load(std::memory_order_relaxed);
    r.name = extras.trace_name;
    r.site = extras.trace_site;
    handle& home = task.home();
    if (handle* here = driving(); here && &here->group() == &home.group()) {
        trace_ring& ring = *here->owner().trace();
        r.ts = ring.now();
        ring.record(r);
        return;
    }
    trace_recorder* trace = home.group().tracer();
    if (!trace) return;
    r.ts = trace->now();
    try {
        trace->record_outside(r);
    } catch (...) {
        // Out of memory: the event is lost.
    }
}

/// Closes the open wait as reported and records it, unless it is closed
/// already (woken, polled again, or reported by the other side).
void report_once(task_header& task, task_extras& extras) noexcept {
    std::uint8_t open = traced_wait::on_waker;
    if (extras.trace_wait.compare_exchange_strong(open, traced_wait::reported,
                                                  std::memory_order_seq_cst))
        record_lost_wake(task, extras);
}

/// A wake or a cancellation on its way: the task will be polled again.
constexpr std::uint64_t will_run =
    task_state::scheduled | task_state::notified | task_state::complete | task_state::interrupted;

/// The last waker of `task` went without waking it.
void last_waker_gone(task_header& task, task_extras& extras) noexcept {
    if (extras.trace_wait.load(std::memory_order_seq_cst) != traced_wait::on_waker) return;
    // Any thread: counted in, as a wake from outside is, before the task's
    // runtime is read (outside_wakes.hpp); a complete task's may be gone.
    outside_wake counted;
    if (task.state.load(std::memory_order_seq_cst) & will_run) return;
    report_once(task, extras);
}

/// A waker of `task` is gone (after its wake, if it woke).
void count_out(task_header* task) noexcept {
    task_extras& extras = *task->extras();
    if (extras.trace_wakers.fetch_sub(1, std::memory_order_seq_cst) == 1)
        last_waker_gone(*task, extras);
}

/// A wake through a waker ends the wait before it queues the task, so that
/// neither side reports a wait that a wake ended.
void end_wait(task_header* task) noexcept {
    std::uint8_t open = traced_wait::on_waker;
    task->extras()->trace_wait.compare_exchange_strong(open, traced_wait::none,
                                                       std::memory_order_seq_cst);
}

void traced_wake(void* data) {
    auto* task = static_cast<task_header*>(data);
    end_wait(task);
    wake_task(task);
    count_out(task);
    task->release();
}
void traced_wake_by_ref(void* data) {
    auto* task = static_cast<task_header*>(data);
    end_wait(task);
    wake_task(task);
}
void* traced_clone(void* data) {
    auto* task = static_cast<task_header*>(data);
    task->add_ref();
    task->extras()->trace_wakers.fetch_add(1, std::memory_order_relaxed);
    return data;
}
void traced_drop(void* data) {
    auto* task = static_cast<task_header*>(data);
    count_out(task);
    task->release();
}

constexpr waker_vtable traced_waker_vtable{&traced_wake, &traced_wake_by_ref, &traced_clone,
                                           &traced_drop};

}  // namespace

waker make_traced_waker(task_header& task) noexcept {
    task.extras()->trace_wakers.fetch_add(1, std::memory_order_relaxed);
    return waker(&task, &traced_waker_vtable);
}

void note_traced_suspend(task_header& task) noexcept {
    if (task.leaf) return;  // a kernel awaiter's: the primitive holding the task wakes it
    task_extras* extras = task.extras();
    // A timeout scope ends any wait (task_state::timeout_fired).
    if (!extras || extras->timeouts) return;
    if (task.state.load(std::memory_order_seq_cst) & will_run) return;
    std::uint8_t none = traced_wait::none;
    if (!extras->trace_wait.compare_exchange_strong(none, traced_wait::on_waker,
                                                    std::memory_order_seq_cst))
        return;  // reported before
    if (extras->trace_wakers.load(std::memory_order_seq_cst) != 0) return;
    if (task.state.load(std::memory_order_seq_cst) & will_run) {
        // Woken meanwhile by its last waker, which found the wait not yet open.
        note_traced_poll(*extras);
        return;
    }
    report_once(task, *extras);
}

}  // namespace rtkit::detail
