#pragma once
// rtkit::detail::readiness_awaiter: waits for a registered descriptor's readiness.
// Not API for applications; kernel I/O code that makes its own system calls
// (datagrams, the signal pipe) uses it.
#include <coroutine>

#include "rtkit/cx.hpp"
#include "rtkit/detail/io.hpp"

namespace rtkit::detail {

/// Suspends until the reactor reports `want` (or hang-up, or an error) on
/// `registration`, and gives the latched readiness bits: 0 when the task
/// was woken otherwise, so the caller tries its system call again and waits
/// once more on EAGAIN. A cancellation point. However it ends, the wait is
/// unlinked from the registration before the awaiter goes. Its leaf check
/// resumes it on any wake; it is there to say that the registration, not a
/// waker, holds the task (lost wake-ups in traces, kernel/src/lost_wakes.hpp).
class readiness_awaiter : leaf_check {
  public:
    readiness_awaiter(io_registration& registration, interest want) noexcept
        : leaf_check{&any_wake}, registration_(registration), want_(want) {}
    readiness_awaiter(const readiness_awaiter&) = delete;
    readiness_awaiter& operator=(const readiness_awaiter&) = delete;
    ~readiness_awaiter() { registration_.withdraw(waiter_); }

    bool await_ready() const noexcept { return cancel_pending(); }
    bool await_suspend(std::coroutine_handle<>) {
        task_header* self = current_task();
        const borrowed_task_waker wake(self);
        bits_ = registration_.poll_ready(want_, waiter_, wake.get());
        if (bits_ != 0) return false;
        self->leaf = this;
        return true;
    }
    unsigned await_resume() {
        registration_.withdraw(waiter_);
        check_cancel();
        return bits_;
    }

  private:
    static bool any_wake(leaf_check&) noexcept { return true; }
    io_registration& registration_;
    interest want_;
    io_waiter waiter_;
    unsigned bits_ = 0;
};

}  // namespace rtkit::detail
