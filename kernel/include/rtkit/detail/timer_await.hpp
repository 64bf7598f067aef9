#pragma once
// The awaitables behind sleep and yield_now, and the kernel's timer entry points.
#include <coroutine>
#include <cstdint>

#include "rtkit/detail/handle.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/time.hpp"

namespace rtkit::detail {

/// Awaitable of sleep/sleep_until: arms a timer on suspend, disarms it when the
/// awaiting task stops waiting early (it is cancelled, say). A cancellation point.
/// [[nodiscard]]: a sleep that is not awaited does nothing.
class [[nodiscard]] sleep_awaiter : leaf_check {
  public:
    sleep_awaiter(handle& home, instant deadline) noexcept
        : leaf_check{&ready}, home_(&home), deadline_(deadline) {}
    sleep_awaiter(const sleep_awaiter&) = delete;
    sleep_awaiter& operator=(const sleep_awaiter&) = delete;
    ~sleep_awaiter() {
        if (armed_) home_->cancel_timer(ticket_);
    }
    bool await_ready() const noexcept { return cancel_pending() || home_->now() >= deadline_; }
    void await_suspend(std::coroutine_handle<>) {
        task_header* self = current_task();
        ticket_ = home_->arm_timer(deadline_, self->make_waker());
        armed_ = true;
        self->leaf = this;
    }
    void await_resume() {
        check_cancel();  // the destructor disarms the timer if it is still armed
        armed_ = false;
        handle::finish_timer(ticket_);
    }

  private:
    static bool ready(leaf_check& self) noexcept {
        auto* me = static_cast<sleep_awaiter*>(&self);
        return cancel_pending() || me->home_->now() >= me->deadline_;
    }
    handle* home_;
    instant deadline_;
    timer_ticket ticket_;
    bool armed_ = false;
};

/// Awaitable of yield_now: lets every other ready task run once first. A
/// cancellation point. [[nodiscard]]: a yield that is not awaited does nothing.
struct [[nodiscard]] yield_awaiter {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept { yield_requested_slot = true; }
    void await_resume() const { check_cancel(); }
};

}  // namespace rtkit::detail
