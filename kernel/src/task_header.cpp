// Task wakers, references and the kernel entry points the public templates call.
#include "rtkit/detail/task_header.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "scheduler.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

#include <thread>

namespace rtkit::detail {

__thread task_header* current_task_slot __attribute__((tls_model("initial-exec"))) = nullptr;
__thread thread_context this_thread_context __attribute__((tls_model("initial-exec")));

void throw_cancelled() {
    task_header* t = current_task();
    const std::uint32_t s = t ? t->state.load(std::memory_order_acquire) : 0;
    if (!(s & task_state::cancel_requested) && (s & task_state::timeout_fired))
        throw task_cancelled(cancel_reason{"timed out"});
    if (task_extras* extras = t ? t->extras.load(std::memory_order_acquire) : nullptr)
        if (cancel_reason* why = extras->reason.load(std::memory_order_acquire))
            throw task_cancelled(*why);
    throw task_cancelled(cancel_reason{"cancelled"});
}

namespace {

/// Wins the right to queue `task`, marking it `queued_as` (scheduled, or
/// running for a task requeued as a yield does), and returns true; or records
/// the wake where it is enough and returns false: a running task is marked
/// notified (its worker polls it again), a queued one needs nothing, a
/// finished one ignores wakes.
bool claim_queue(task_header* task, std::uint32_t queued_as) noexcept {
    using namespace task_state;
    std::uint32_t s = task->state.load(std::memory_order_acquire);
    for (;;) {
        if (s & (complete | scheduled)) return false;
        const std::uint32_t next = s | ((s & running) ? notified : queued_as);
        if (next == s) return false;  // already notified
        if (task->state.compare_exchange_weak(s, next, std::memory_order_acq_rel))
            return !(s & running);
    }
}

void wake_task(task_header* task) noexcept {
    using namespace task_state;
    std::uint32_t s = task->state.load(std::memory_order_acquire);
    if (s & root) {
        // The flag lives in the root's own state word, which a waker keeps alive.
        if (task->state.fetch_or(root_woken, std::memory_order_seq_cst) & (root_woken | complete))
            return;
        task->state.notify_all();  // a caller polling it off the worker waits on the word
        task->sched()->unpark();   // a caller driving the worker may be parked in it
        return;
    }
    if (claim_queue(task, scheduled)) task->sched()->schedule(task);
}

}  // namespace

bool wake_if_polled_here(task_header* task) noexcept {
    // A root may be polled by its caller off the worker, so it never qualifies.
    if (task->state.load(std::memory_order_relaxed) & task_state::root) return false;
    worker* holder = this_thread().active_worker;
    if (!holder || holder != task->sched()->home()) return false;
    // Queue it already marked running, as a yield requeues: the worker then
    // skips the scheduled -> running transition, one locked instruction less
    // per wake. Wakes while it waits in the queue only mark it notified.
    if (claim_queue(task, task_state::running)) {
        task->requeued_running = true;
        holder->push_ready(task);
    }
    return true;
}

namespace {

void waker_wake(void* data) {
    auto* task = static_cast<task_header*>(data);
    wake_task(task);
    task->release();
}
void waker_wake_by_ref(void* data) {
    wake_task(static_cast<task_header*>(data));
}
void* waker_clone(void* data) {
    static_cast<task_header*>(data)->refs.fetch_add(1, std::memory_order_relaxed);
    return data;
}
void waker_drop(void* data) {
    static_cast<task_header*>(data)->release();
}

constexpr waker_vtable task_waker_vtable{&waker_wake, &waker_wake_by_ref, &waker_clone,
                                         &waker_drop};

}  // namespace

waker task_header::make_waker() noexcept {
    refs.fetch_add(1, std::memory_order_relaxed);
    return waker(this, &task_waker_vtable);
}

waker task_header::adopt_as_waker() noexcept {
    return waker(this, &task_waker_vtable);
}

void task_header::release() noexcept {
    // A count of 1 is ours alone: nobody can take another reference without
    // one, so the last owner destroys without a locked instruction.
    if (refs.load(std::memory_order_acquire) != 1 &&
        refs.fetch_sub(1, std::memory_order_acq_rel) != 1)
        return;
    destroy_frame();
}

void task_header::destroy_frame() {
    // A joiner left behind by a join that saw the task complete mid-install.
    if (frame && joiner) joiner->release();
    delete extras.load(std::memory_order_acquire);
    frame.destroy();
}

task_extras& task_header::get_extras() {
    task_extras* current = extras.load(std::memory_order_acquire);
    if (current) return *current;
    auto* fresh = new task_extras;
    if (extras.compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;  // another thread installed one first
    return *current;
}

void set_cancel_reason(task_header& task, cancel_reason reason) {
    task_extras& extras = task.get_extras();
    auto* mine = new cancel_reason(std::move(reason));
    cancel_reason* none = nullptr;
    if (!extras.reason.compare_exchange_strong(none, mine, std::memory_order_acq_rel)) delete mine;
}

scheduler& current_scheduler() {
    scheduler* s = this_thread().sched;
    if (!s) throw no_runtime_error("no rtkit runtime on this thread: call this from inside a task");
    return *s;
}

instant scheduler_now(scheduler& sched) noexcept {
    return sched.now();
}

region_node& spawn_region_of(task_header& task) noexcept {
    if (task_extras* extras = task.extras.load(std::memory_order_acquire))
        if (extras->spawn_region) return *extras->spawn_region;
    return *task.region;
}

void spawn_local_task(scheduler& sched, region_node& region, task_header* task) {
    worker* holder = this_thread().active_worker;
    if (holder != sched.home())
        throw no_runtime_error(
            "spawn_local needs this thread to hold the runtime's worker: call it from a task or a "
            "block_on root running on the worker");
    task->get_extras().local_owner = std::this_thread::get_id();
    task->region = &region;
    region.enter();
    std::uint32_t initial = task_state::scheduled | task_state::local;
    if (region.is_cancelled()) {
        set_cancel_reason(*task, region.cancel_reason_or_default());
        initial |= task_state::cancel_requested;
    }
    task->state.store(initial, std::memory_order_relaxed);
    holder->admit(task);
}

void spawn_task(scheduler& sched, region_node& region, task_header* task) {
    task->region = &region;
    region.enter();
    std::uint32_t initial = task_state::scheduled;
    if (region.is_cancelled()) {
        // Spawned into a cancelled region: it unwinds at its first await point.
        set_cancel_reason(*task, region.cancel_reason_or_default());
        initial |= task_state::cancel_requested;
    }
    // Nobody else can see the task yet; its joiner may once it is submitted.
    task->state.store(initial, std::memory_order_relaxed);
    worker* holder = this_thread().active_worker;
    if (holder == sched.home())
        holder->admit(task);
    else
        sched.submit({remote_item::kind::admit, task});
}

timer_ticket arm_timer(scheduler& sched, instant deadline, waker w) {
    worker* holder = this_thread().active_worker;
    if (holder == sched.home())
        return timer_ticket{holder->arm_timer(deadline, std::move(w)), nullptr};
    auto* remote = new remote_timer;
    remote->deadline = deadline;
    remote->to_wake = std::move(w);
    sched.submit({remote_item::kind::arm_timer, remote});
    return timer_ticket{0, remote};
}

void cancel_timer(scheduler& sched, timer_ticket& ticket) noexcept {
    if (!ticket.remote) {
        if (worker* holder = this_thread().active_worker; holder == sched.home())
            holder->cancel_timer(ticket.handle);
        return;
    }
    // Off the worker: ask the worker to disarm it (the request keeps it alive).
    auto* remote = static_cast<remote_timer*>(std::exchange(ticket.remote, nullptr));
    try {
        sched.submit({remote_item::kind::cancel_timer, remote});
    } catch (...) {
        remote->release();  // out of memory: the timer fires later and wakes nothing harmful
    }
}

void finish_timer(timer_ticket& ticket) noexcept {
    if (ticket.remote) static_cast<remote_timer*>(std::exchange(ticket.remote, nullptr))->release();
}

}  // namespace rtkit::detail
