#pragma once
// rtkit::net::detail::io_operation: the awaitable behind every rtkit::net
// operation, on a readiness reactor or a completion reactor alike.
#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/net/registered_fd.hpp"

namespace rtkit::net::detail {

/// One operation (accept, connect, recv, send, read, write) on a
/// registered_fd. `co_await` yields the syscall's result (bytes, or the
/// accepted descriptor) or throws std::system_error naming the operation and
/// the address.
///
/// With a completion reactor the request is submitted whole; otherwise the
/// syscall is tried when the reactor reports readiness. Any number of
/// operations may wait on one descriptor at once, in either direction. A
/// cancellation point: a cancel request (or timeout scope) ends the wait; a
/// submitted request is then cancelled and its completion awaited before the
/// buffer is released, and the wait is unlinked from the registration, so
/// nothing of it can fire later. A result that arrived before the
/// cancellation is returned rather than lost (an accepted descriptor,
/// received bytes). With a deadline, passing it throws ETIMEDOUT instead.
/// On a descriptor that is closed, or closed while the operation waits (by
/// another task), it throws std::system_error(EBADF) saying so.
class io_operation : rtkit::detail::leaf_check {
  public:
    io_operation(registered_fd& fd, const io_request& request) noexcept
        : leaf_check{&leaf_ready}, fd_(fd), request_(request) {}
    io_operation(const io_operation&) = delete;
    io_operation& operator=(const io_operation&) = delete;
    ~io_operation() {
        // Finished with no timer (the common case) leaves nothing to undo.
        if (phase_ != phase::finished || timer_armed_) abandon();
    }

    /// Gives up at `deadline` (runtime clock) with ETIMEDOUT. Call it before
    /// the first await; on a temporary it returns a new operation, so that
    /// `co_await s.read(b, n).with_deadline(t)` awaits a prvalue (an operation
    /// is neither copied nor moved, and GCC 12 copies an awaited lvalue).
    io_operation& with_deadline(instant deadline) & noexcept {
        deadline_ = deadline;
        return *this;
    }
    io_operation with_deadline(instant deadline) && noexcept {
        return io_operation(fd_, request_, deadline);
    }

    bool await_ready() const noexcept { return rtkit::detail::cancel_pending(); }
    bool await_suspend(std::coroutine_handle<>);
    std::size_t await_resume() {
        if (phase_ == phase::finished && !timer_armed_ && error_ == 0 && !failure_) return value_;
        return resume_other();
    }

  private:
    enum class phase : std::uint8_t { idle, waiting_ready, submitted, finished };

    io_operation(registered_fd& fd, const io_request& request, instant deadline) noexcept
        : leaf_check{&leaf_ready}, fd_(fd), request_(request), deadline_(deadline) {}

    /// Moves the operation on; true once it has a result. Arms the current
    /// task's waker when it must wait.
    bool advance();
    /// The non-blocking system call itself (not connect): its result, errno set.
    long perform() noexcept;
    /// The syscall on the readiness path; true when it produced a result.
    bool attempt();
    void finish(long result) noexcept;
    /// await_resume for everything but a plain success: cancelled, timed
    /// out, failed, or a deadline's timer to disarm.
    std::size_t resume_other();
    /// Ends a wait that was cut short: ends what it waits for (end_wait),
    /// keeps a result that came first, disarms the timer.
    void abandon() noexcept;
    /// Cancels a submission still pending (returns once its completion was
    /// reaped) and unlinks the wait from the registration.
    void end_wait() noexcept;
    /// Finishes with the submitted operation's result, when it has one
    /// (not cancelled, and not EAGAIN); false otherwise.
    bool finish_with_completion() noexcept;
    /// Finishes with EBADF: the descriptor was closed (before or during the wait).
    void finish_closed() noexcept;
    enum class closed_when : std::uint8_t { open, before, while_waiting };
    bool deadline_passed() const noexcept;
    static bool leaf_ready(leaf_check& self) noexcept;

    registered_fd& fd_;
    io_request request_;
    io_completion completion_;
    /// Where the reactor's completion interface was when the request was
    /// submitted (the descriptor may be closed by the time it is cancelled).
    completion_reactor_v1* completions_ = nullptr;
    rtkit::detail::io_waiter waiter_;
    std::optional<instant> deadline_;
    rtkit::detail::timer_ticket timer_{};
    bool timer_armed_ = false;
    phase phase_ = phase::idle;
    closed_when closed_ = closed_when::open;  ///< set by finish_closed()
    int error_ = 0;
    std::size_t value_ = 0;
    std::exception_ptr failure_;
};

}  // namespace rtkit::net::detail
