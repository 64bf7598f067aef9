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
/// unlinked from the registration before the awaiter goes.
class readiness_awaiter {
  public:
    readiness_awaiter(io_registration& registration, interest want) noexcept
        : registration_(registration), want_(want) {}
    readiness_awaiter(const readiness_awaiter&) = delete;
    readiness_awaiter& operator=(const readiness_awaiter&) = delete;
    ~readiness_awaiter() { registration_.withdraw(waiter_); }

    bool await_ready() const noexcept { return cancel_pending(); }
    bool await_suspend(std::coroutine_handle<>) {
        const borrowed_task_waker wake(current_task());
        bits_ = registration_.poll_ready(want_, waiter_, wake.get());
        return bits_ == 0;
    }
    unsigned await_resume() {
        registration_.withdraw(waiter_);
        check_cancel();
        return bits_;
    }

  private:
    io_registration& registration_;
    interest want_;
    io_waiter waiter_;
    unsigned bits_ = 0;
};

}  // namespace rtkit::detail
