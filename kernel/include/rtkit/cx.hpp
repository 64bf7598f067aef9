#pragma once
// rtkit::cx: what a running task may do (spawn, sleep, yield, read the clock),
// and the free functions that use the ambient one.
#include <coroutine>
#include <stdexcept>

#include "rtkit/join_handle.hpp"
#include "rtkit/task.hpp"
#include "rtkit/time.hpp"

namespace rtkit {

/// Thrown when a runtime operation is used where no task of a runtime runs.
class no_runtime_error : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

namespace detail {

/// Kernel entry points used by the templates below (defined in the library).
scheduler& current_scheduler();  // throws no_runtime_error outside a runtime
void spawn_task(scheduler& sched, task_header* task);
instant scheduler_now(scheduler& sched) noexcept;

/// A timer armed for a sleeping task, however it was armed.
struct timer_ticket {
    std::uint64_t handle = 0;
    void* remote = nullptr;  ///< set when armed from a thread that did not hold the worker
};
timer_ticket arm_timer(scheduler& sched, instant deadline, waker w);
void cancel_timer(scheduler& sched, timer_ticket& ticket) noexcept;
void finish_timer(timer_ticket& ticket) noexcept;  ///< after it fired

/// Awaitable of sleep/sleep_until: arms a timer on suspend, disarms it when the
/// awaiting task stops waiting early (for example, it is destroyed).
class sleep_awaiter {
  public:
    sleep_awaiter(scheduler& sched, instant deadline) noexcept
        : sched_(&sched), deadline_(deadline) {}
    sleep_awaiter(const sleep_awaiter&) = delete;
    sleep_awaiter& operator=(const sleep_awaiter&) = delete;
    ~sleep_awaiter() {
        if (armed_) cancel_timer(*sched_, ticket_);
    }
    bool await_ready() const noexcept {
        return cancel_pending() || scheduler_now(*sched_) >= deadline_;
    }
    void await_suspend(std::coroutine_handle<>) {
        task_header* self = current_task();
        ticket_ = arm_timer(*sched_, deadline_, self->make_waker());
        armed_ = true;
        self->leaf_ready = &ready;
        self->leaf = this;
    }
    void await_resume() {
        check_cancel();  // the destructor disarms the timer if it is still armed
        armed_ = false;
        finish_timer(ticket_);
    }

  private:
    static bool ready(void* self) noexcept {
        auto* me = static_cast<sleep_awaiter*>(self);
        return cancel_pending() || scheduler_now(*me->sched_) >= me->deadline_;
    }
    scheduler* sched_;
    instant deadline_;
    timer_ticket ticket_;
    bool armed_ = false;
};

/// Awaitable of yield_now: lets every other ready task run once first.
struct yield_awaiter {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept { current_task()->yielded = true; }
    void await_resume() const { check_cancel(); }
};

}  // namespace detail

/// The capability context of a running task: what it may do on its runtime.
/// Cheap to copy. cx::current() gives the one of the task being polled.
class cx {
  public:
    /// The context of the task running on this thread; throws no_runtime_error
    /// when called outside a task.
    static cx current() { return cx(detail::current_scheduler(), detail::current_task()); }

    /// This task's id (zero for a block_on root polled outside the worker).
    task_id id() const noexcept { return task_ ? task_->id : task_id{}; }

    /// The runtime clock (the timer driver's).
    instant now() const noexcept { return detail::scheduler_now(*sched_); }

    /// Starts `t` as a task of its own on this runtime; its outcome comes back
    /// through the returned handle.
    template <class T>
    join_handle<T> spawn(task<T> t) const {
        auto frame = t.release();
        detail::promise<T>& p = frame.promise();
        p.owner = &p;
        p.frame = frame;
        p.resume_point = frame;
        p.refs.store(2, std::memory_order_relaxed);  // the scheduler's and the handle's
        detail::spawn_task(*sched_, &p);
        return join_handle<T>(&p);
    }

    /// Suspends this task for `d` (a real timer in the runtime's timer driver).
    detail::sleep_awaiter sleep(duration d) const noexcept {
        return detail::sleep_awaiter(*sched_, now() + d);
    }
    detail::sleep_awaiter sleep_until(instant deadline) const noexcept {
        return detail::sleep_awaiter(*sched_, deadline);
    }

    /// Lets the other ready tasks run before this one continues.
    detail::yield_awaiter yield_now() const noexcept { return {}; }

  private:
    cx(detail::scheduler& sched, detail::task_header* task) noexcept
        : sched_(&sched), task_(task) {}
    detail::scheduler* sched_;
    detail::task_header* task_;
};

/// A waker for the task running on this thread, for writing awaitables: take it
/// in await_suspend, store it where the event will fire it. Note that the task
/// is resumed on any wake; an awaitable re-checks its condition in
/// await_resume or is written so that only its own event wakes it.
/// Throws no_runtime_error outside a task.
inline waker current_waker() {
    detail::task_header* t = detail::current_task();
    if (!t) throw no_runtime_error("current_waker() called outside a task");
    return t->make_waker();
}

/// cx::current().spawn(t)
template <class T>
join_handle<T> spawn(task<T> t) {
    return cx::current().spawn(std::move(t));
}
/// cx::current().sleep(d)
inline detail::sleep_awaiter sleep(duration d) {
    return cx::current().sleep(d);
}
/// cx::current().yield_now()
inline detail::yield_awaiter yield_now() noexcept {
    return {};
}
/// cx::current().now()
inline instant now() {
    return cx::current().now();
}

}  // namespace rtkit
