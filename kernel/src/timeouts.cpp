// Timeout scopes. A scope's timer is armed only once the task suspends inside
// it (arm_timeouts, called by the poller), so work that completes at once never
// touches the timer driver. The armed timer is a small shared record: the
// timer driver's waker and the scope each hold a reference, so a late fire
// after the scope closed finds it closed and does nothing.
#include "timeouts.hpp"

#include <algorithm>
#include <new>
#include <thread>

#include "rtkit/cx.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/timeout_scope.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

struct armed_timer {
    /// armed -> firing -> fired, by the timer's waker; or armed -> closed, by
    /// the scope. Each side moves it with one compare-exchange, so the fire
    /// and the close cannot both win: a fire that finds the scope closed
    /// touches nothing, and a close that finds it fired reports it.
    enum : int { armed, firing, fired, closed };
    std::atomic<int> state{armed};
    std::atomic<int> refs{2};  ///< the scope and the timer's waker
    /// Holds no reference: the scope lives in the task's frame, and a close
    /// waits for a fire that is `firing`, so the task is there for as long
    /// as a fire that won may touch it.
    task_header* task;

    explicit armed_timer(task_header* t) noexcept : task(t) {}
    // From the frame pools: one is made for every timeout that waits.
    static void* operator new(std::size_t size) { return allocate_frame(size); }
    static void operator delete(void* p, std::size_t size) noexcept { free_frame(p, size); }
    void release() noexcept {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
};

namespace {

void timer_wake_by_ref(void* data) {
    auto* timer = static_cast<armed_timer*>(data);
    RTKIT_CHAOS_POINT(timeout_firing);
    int open = armed_timer::armed;
    if (!timer->state.compare_exchange_strong(open, armed_timer::firing, std::memory_order_acq_rel))
        return;  // the scope closed first (or this timer fired already)
    // Interrupt the task at its current await point. A close that comes now
    // waits for `fired`, so it sees the bit set here and clears it; until
    // then the task cannot go, so its waker is made before.
    task_header* task = timer->task;
    const std::uint64_t was =
        task->state.fetch_or(task_state::timeout_fired, std::memory_order_acq_rel);
    if (was & task_state::complete) {
        timer->state.store(armed_timer::fired, std::memory_order_release);
        return;
    }
    waker w = task->make_waker();
    timer->state.store(armed_timer::fired, std::memory_order_release);
    w.wake();
}
void timer_wake(void* data) {
    timer_wake_by_ref(data);
    static_cast<armed_timer*>(data)->release();
}
void* timer_clone(void* data) {
    static_cast<armed_timer*>(data)->refs.fetch_add(1, std::memory_order_relaxed);
    return data;
}
void timer_drop(void* data) {
    static_cast<armed_timer*>(data)->release();
}

constexpr waker_vtable timeout_waker_vtable{&timer_wake, &timer_wake_by_ref, &timer_clone,
                                            &timer_drop};

}  // namespace

void push_timeout(timeout_state& scope) {
    scope.task = current_task();
    scope.opened_mark = scope.task->home().group().clock().take_mark();
    task_extras* const made = scope.task->extras();  // made by the first timeout, mostly
    task_extras& extras = made ? *made : scope.task->get_extras();
    scope.outer = extras.timeouts;
    extras.timeouts = &scope;
}

namespace {

/// Whether a scope's timer has fired, or is firing now (its task's bit is
/// set, or about to be).
bool has_fired(const armed_timer& timer) noexcept {
    return timer.state.load(std::memory_order_acquire) != armed_timer::armed;
}

/// Takes an armed scope's timer back. True when it had fired.
bool disarm(task_header& task, timeout_state& scope) noexcept {
    armed_timer* timer = scope.timer;
    int seen = armed_timer::armed;
    const bool fired =
        !timer->state.compare_exchange_strong(seen, armed_timer::closed, std::memory_order_acq_rel);
    // A fire on another thread is between its two steps: wait for it to set
    // the task's bit, so that the caller's clearing of the bit comes after.
    while (seen == armed_timer::firing) {
        std::this_thread::yield();
        seen = timer->state.load(std::memory_order_acquire);
    }
    task.home().cancel_timer(scope.ticket);
    handle::finish_timer(scope.ticket);
    timer->release();
    scope.timer = nullptr;
    return fired;
}

}  // namespace

bool pop_timeout(timeout_state& scope) noexcept {
    task_header* self = scope.task;
    task_extras& extras = *self->extras();
    extras.timeouts = scope.outer;
    const bool fired = scope.timer && disarm(*self, scope);
    if (fired) {
        // The bit stays only while another open scope of this task has fired.
        bool other_fired = false;
        for (timeout_state* s = extras.timeouts; s; s = s->outer)
            if (s->timer && has_fired(*s->timer)) other_fired = true;
        if (!other_fired)
            self->state.fetch_and(~task_state::timeout_fired, std::memory_order_acq_rel);
    }
    return fired;
}

void arm_timeouts(task_header& task, task_extras& extras) {
    if (extras.timeouts->timer) return;  // all armed: the innermost is armed last
    const runtime_clock& clock = task.home().group().clock();
    for (timeout_state* s = extras.timeouts; s && !s->timer; s = s->outer) {
        auto* timer = new armed_timer(&task);
        s->timer = timer;
        try {
            // Made in place: the ticket comes back through memory, and
            // copying it would read with a 16-byte load what the call wrote
            // with 8-byte stores, which the processor cannot forward (a
            // stall of a dozen cycles per timer).
            ::new (&s->ticket) timer_ticket(task.home().arm_timer(
                saturating_add(clock.instant_of_mark(s->opened_mark), s->limit),
                waker(timer, &timeout_waker_vtable)));
        } catch (...) {
            // The timer driver refused it: the scope holds no timer. The
            // scopes inside it, armed just now, are disarmed too: "the
            // innermost is armed" must keep meaning "all are", so the next
            // suspension arms all.
            s->timer = nullptr;
            timer->release();
            for (timeout_state* inner = extras.timeouts; inner != s; inner = inner->outer)
                disarm(task, *inner);
            throw;
        }
    }
}

}  // namespace rtkit::detail
