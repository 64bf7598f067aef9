#pragma once
// The awaitables behind sleep and yield_now, and the kernel's timer entry points.
#include <coroutine>
#include <cstdint>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/time.hpp"

namespace rtkit::detail {

instant scheduler_now(scheduler& sched) noexcept;

/// A timer armed for a task, however it was armed.
struct timer_ticket {
    std::uint64_t handle = 0;
    void* remote = nullptr;  ///< set when armed from a thread that did not hold the worker
};
/// Arms `w` at `deadline`: directly in the timer driver when this thread holds
/// the worker, otherwise through the worker's remote queue.
timer_ticket arm_timer(scheduler& sched, instant deadline, waker w);
/// Disarms a timer that has not fired (a no-op once it fired).
void cancel_timer(scheduler& sched, timer_ticket& ticket) noexcept;
/// Releases what a fired timer's ticket still holds.
void finish_timer(timer_ticket& ticket) noexcept;

/// Awaitable of sleep/sleep_until: arms a timer on suspend, disarms it when the
/// awaiting task stops waiting early (it is cancelled, say). A cancellation point.
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

/// Awaitable of yield_now: lets every other ready task run once first. A
/// cancellation point.
struct yield_awaiter {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept { current_task()->yielded = true; }
    void await_resume() const { check_cancel(); }
};

}  // namespace rtkit::detail
