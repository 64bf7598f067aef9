// Timeout scopes. A scope's timer is armed only once the task suspends inside
// it (arm_timeouts, called by the poller), so work that completes at once never
// touches the timer driver. The armed timer is a small shared record: the
// timer driver's waker and the scope each hold a reference, so a late fire
// after the scope closed finds `disarmed` and does nothing.
#include "timeouts.hpp"

#include <algorithm>

#include "rtkit/cx.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/timeout_scope.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

struct armed_timer {
    std::atomic<int> refs{2};  ///< the scope and the timer's waker
    std::atomic<bool> fired{false};
    std::atomic<bool> disarmed{false};
    task_header* task;  ///< holds a reference

    explicit armed_timer(task_header* t) : task(t) { t->add_ref(); }
    void release() noexcept {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        task->release();
        delete this;
    }
};

namespace {

void timer_wake_by_ref(void* data) {
    auto* timer = static_cast<armed_timer*>(data);
    if (timer->disarmed.load(std::memory_order_acquire)) return;
    RTKIT_CHAOS_POINT(timeout_firing);
    timer->fired.store(true, std::memory_order_release);
    // Interrupt the task at its current await point.
    if (timer->task->state.fetch_or(task_state::timeout_fired, std::memory_order_acq_rel) &
        task_state::complete)
        return;
    waker w = timer->task->make_waker();
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
    scope.opened = scope.task->home().group().clock().now_or_slightly_later();
    task_extras& extras = scope.task->get_extras();
    scope.outer = extras.timeouts;
    extras.timeouts = &scope;
}

namespace {

/// Takes an armed scope's timer back. True when it had fired.
bool disarm(task_header& task, timeout_state& scope) noexcept {
    armed_timer* timer = scope.timer;
    timer->disarmed.store(true, std::memory_order_release);
    task.home().cancel_timer(scope.ticket);
    handle::finish_timer(scope.ticket);
    const bool fired = timer->fired.load(std::memory_order_acquire);
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
            if (s->timer && s->timer->fired.load(std::memory_order_acquire)) other_fired = true;
        if (!other_fired)
            self->state.fetch_and(~task_state::timeout_fired, std::memory_order_acq_rel);
    }
    return fired;
}

void arm_timeouts(task_header& task, task_extras& extras) {
    if (extras.timeouts->timer) return;  // all armed: the innermost is armed last
    // The exact time bounds each scope's cheap reading of when it opened:
    // the deadline counts from no later than either, so never comes early.
    const instant now = task.home().now();
    for (timeout_state* s = extras.timeouts; s && !s->timer; s = s->outer) {
        auto* timer = new armed_timer(&task);
        s->timer = timer;
        try {
            s->ticket = task.home().arm_timer(saturating_add(std::min(now, s->opened), s->limit),
                                              waker(timer, &timeout_waker_vtable));
        } catch (...) {
            // The timer driver refused it: the scope holds no timer, and its
            // reference no longer keeps the task alive. The scopes inside it,
            // armed just now, are disarmed too: "the innermost is armed"
            // must keep meaning "all are", so the next suspension arms all.
            s->timer = nullptr;
            timer->release();
            for (timeout_state* inner = extras.timeouts; inner != s; inner = inner->outer)
                disarm(task, *inner);
            throw;
        }
    }
}

}  // namespace rtkit::detail
