#include "rtkit/net/io_operation.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "net_error.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/handle.hpp"

namespace rtkit::net::detail {
namespace {

using rtkit::detail::current_task;

interest interest_of(io_opcode op) noexcept {
    switch (op) {
        case io_opcode::connect:
        case io_opcode::send:
        case io_opcode::write:
            return interest::write;
        default:
            return interest::read;
    }
}

/// Writes usually succeed at once: try them before asking the reactor. Reads,
/// accepts and connects wait for readiness first (saves an EAGAIN syscall).
bool try_first(io_opcode op) noexcept {
    return op == io_opcode::send || op == io_opcode::write;
}

}  // namespace

bool io_operation::deadline_passed() const noexcept {
    return deadline_ && current_task()->home().now() >= *deadline_;
}

void io_operation::finish_closed() noexcept {
    closed_ = phase_ == phase::idle ? closed_when::before : closed_when::while_waiting;
    finish(-EBADF);
}

void io_operation::finish(long result) noexcept {
    phase_ = phase::finished;
    if (result < 0) {
        error_ = static_cast<int>(-result);
    } else {
        value_ = static_cast<std::size_t>(result);
    }
}

long io_operation::perform() noexcept {
    const int fd = fd_.get();
    switch (request_.op) {
        case io_opcode::accept:
            return ::accept4(fd, request_.address, request_.address_length, request_.flags);
        // recv and send go to the kernel directly: glibc's wrappers are
        // pthread cancellation points and switch asynchronous cancellation on
        // and off around every call, which rtkit (no pthread_cancel) never
        // needs and the echo loop would pay twice per request.
        case io_opcode::recv:
            return ::syscall(SYS_recvfrom, fd, request_.buffer, request_.length, request_.flags,
                             nullptr, nullptr);
        case io_opcode::send:
            return ::syscall(SYS_sendto, fd, request_.buffer, request_.length, request_.flags,
                             nullptr, 0);
        case io_opcode::read:
            return ::read(fd, request_.buffer, request_.length);
        case io_opcode::write:
            return ::write(fd, request_.buffer, request_.length);
        case io_opcode::connect:
            break;
    }
    return 0;
}

bool io_operation::attempt() {
    if (request_.op == io_opcode::connect) {
        // Woken after connect() returned EINPROGRESS: SO_ERROR is the result.
        int error = 0;
        socklen_t size = sizeof error;
        if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &error, &size) < 0) error = errno;
        finish(-error);
        return true;
    }
    auto would_block = [] { return errno == EAGAIN || errno == EWOULDBLOCK; };
    rtkit::detail::io_registration& registration = fd_.registration();
    const unsigned want = static_cast<unsigned>(interest_of(request_.op));
    long n = perform();
    if (n < 0 && would_block()) {
        // Not ready after all. Forget a latched hang-up and error too: the
        // syscall would have reported either (a reader reads end of stream as
        // 0), so what is latched is stale (readiness of an earlier descriptor
        // of this number, say), and kept latched it would answer every wait
        // at once, for ever.
        RTKIT_CHAOS_POINT(readiness_clearing);
        registration.clear_ready(want | ready::hangup | ready::error);
        if (!registration.shared()) return false;
        // Another worker polls the reactor meanwhile: readiness it latched
        // between the EAGAIN and the clear is gone, so look once more. From
        // the clear on, new readiness stays latched: no second clear.
        n = perform();
        if (n < 0 && would_block()) return false;
        // It came: what is left of it no edge will report again.
        registration.latch_again(want);
    }
    if (n < 0) {
        if (errno == EINTR) return false;  // the loop polls readiness (still latched) again
        finish(-errno);
        return true;
    }
    // A short transfer drained the socket (or filled it): the next attempt
    // would only see EAGAIN, so wait for the reactor instead. (Not on a
    // datagram socket, where one short datagram says nothing of the next,
    // nor with a shared reactor, where the clear could drop an edge that
    // came since: the next attempt's EAGAIN clears, then looks again.)
    if (n > 0 && static_cast<std::size_t>(n) < request_.length &&
        request_.op != io_opcode::accept && fd_.kind() != fd_kind::datagram &&
        !registration.shared())
        registration.clear_ready(want);
    finish(n);
    return true;
}

bool io_operation::advance() {
    if (phase_ == phase::finished) return true;
    // Closed before the operation, or by another task while it waited (its
    // registration's removal woke it).
    if (!fd_.is_open()) {
        end_wait();
        if (!finish_with_completion()) finish_closed();
        return true;
    }
    rtkit::detail::io_registration& registration = fd_.registration();
    rtkit::detail::task_header* const self = current_task();
    // Lent, not counted: the wait is unlinked before this task goes.
    const rtkit::detail::borrowed_task_waker wake(self);
    if (phase_ == phase::idle) {
        if (!registration.usable_here())
            throw no_runtime_error(
                describe_operation(request_.op, fd_) +
                ": I/O needs the runtime's worker, and another thread drives it now (a "
                "current_thread runtime's block_on on this thread waits for it); run the "
                "operation in a task, or in the block_on that drives the worker");
        completions_ = fd_.completion();
        if (completions_) {
            completion_.on_complete = self->make_waker();
            completions_->submit(request_, completion_);
            phase_ = phase::submitted;  // and maybe completed already: see below
            // Linked, so that closing the descriptor cancels it and wakes us.
            if (completion_.pending) registration.track(waiter_, completion_, wake.get());
        }
    }
    if (phase_ == phase::submitted) {
        if (completion_.pending) return false;
        registration.withdraw(waiter_);
        if (completion_.result != -EAGAIN) {
            finish(completion_.result);
            return true;
        }
        // The kernel answered a non-blocking descriptor with EAGAIN instead of
        // waiting: finish this one on readiness.
        phase_ = phase::waiting_ready;
    }
    if (phase_ == phase::idle) {
        phase_ = phase::waiting_ready;
        if (try_first(request_.op) && attempt()) return true;
    }
    const interest want = interest_of(request_.op);
    while (true) {
        if (registration.poll_ready(want, waiter_, wake.get()) == 0) return false;
        if (attempt()) return true;
    }
}

bool io_operation::await_suspend(std::coroutine_handle<>) {
    if (advance()) {
        // Done at once: go on, or let the worker's other tasks run first when
        // this task has spent its budget (a socket that always has data).
        if (rtkit::detail::coop_continue(current_task())) return false;
        rtkit::detail::suspend_as_yield();
        return true;
    }
    rtkit::detail::task_header* self = current_task();
    if (deadline_ && !timer_armed_) {
        timer_ = self->home().arm_timer(*deadline_, self->make_waker());
        timer_armed_ = true;
    }
    self->leaf = this;
    return true;
}

bool io_operation::leaf_ready(leaf_check& self) noexcept {
    auto* me = static_cast<io_operation*>(&self);
    if (rtkit::detail::cancel_pending() || me->deadline_passed()) return true;
    try {
        return me->advance();
    } catch (...) {
        me->failure_ = std::current_exception();
        me->phase_ = phase::finished;
        return true;
    }
}

void io_operation::end_wait() noexcept {
    if (phase_ == phase::submitted && completion_.pending) completions_->cancel(completion_);
    if (phase_ == phase::submitted || phase_ == phase::waiting_ready)
        fd_.registration().withdraw(waiter_);
}

bool io_operation::finish_with_completion() noexcept {
    if (phase_ != phase::submitted || completion_.pending || completion_.result == -ECANCELED ||
        completion_.result == -EAGAIN)
        return false;
    finish(completion_.result);
    return true;
}

void io_operation::abandon() noexcept {
    end_wait();
    // Completed before the cancel reached it: keep the result (bytes
    // received, a descriptor accepted).
    finish_with_completion();
    if (timer_armed_) {
        timer_armed_ = false;
        if (timer_.owner) timer_.owner->cancel_timer(timer_);
        rtkit::detail::handle::finish_timer(timer_);
    }
}

std::size_t io_operation::resume_other() {
    if (phase_ != phase::finished) {
        const bool timed_out = deadline_passed() && !rtkit::detail::cancel_pending();
        abandon();
        if (phase_ != phase::finished) {
            if (timed_out) throw_net_error(ETIMEDOUT, request_.op, fd_, " (timed out)");
            rtkit::detail::check_cancel();
            // Neither cancelled nor timed out: cannot happen (leaf_ready said so).
            throw_net_error(EINTR, request_.op, fd_, " (interrupted)");
        }
    } else if (timer_armed_) {
        abandon();  // disarm the deadline's timer
    }
    if (failure_) std::rethrow_exception(failure_);
    if (closed_ == closed_when::while_waiting)
        throw_net_error(EBADF, request_.op, fd_, " (the socket was closed while it waited)");
    if (closed_ == closed_when::before)
        throw_net_error(EBADF, request_.op, fd_, " (the socket is closed)");
    if (error_) throw_net_error(error_, request_.op, fd_, "");
    return value_;
}

}  // namespace rtkit::net::detail
