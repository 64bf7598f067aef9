#pragma once
// The kernel's seam to the reactor for I/O awaitables (rtkit::net builds on it).
// Not API for applications; plugin and I/O code in the kernel use it.

#include "rtkit/detail/io_driver.hpp"
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class worker_group;

/// The running task's waker, lent without taking a reference, for a call that
/// only copies it if it must keep it (io_driver::poll_ready): the task is being
/// polled, so it outlives the call. Saves a reference count up and down per
/// readiness check on the I/O hot path.
class borrowed_task_waker {
  public:
    explicit borrowed_task_waker(task_header* task) noexcept : w_(task->adopt_as_waker()) {}
    ~borrowed_task_waker() {}  // no reference was taken, so none is dropped
    borrowed_task_waker(const borrowed_task_waker&) = delete;
    borrowed_task_waker& operator=(const borrowed_task_waker&) = delete;
    const waker& get() const noexcept { return w_; }

  private:
    union {
        waker w_;  // in a union so that its destructor does not run
    };
};

/// A descriptor registered with the I/O driver (and so the reactor) of the
/// current task's runtime.
/// In the current-thread flavor every operation must run on the thread that
/// drives the worker (a task's poll, or a block_on root driving it); in the
/// multi-thread flavor the reactor is shared and any of the runtime's threads
/// may use it (each call is serialised with the others).
class io_registration {
  public:
    io_registration() noexcept = default;
    /// Registers `fd` for `what`. Throws no_runtime_error outside a task, or
    /// where this thread cannot reach the reactor (current-thread flavor,
    /// another thread drives the worker); std::system_error from io_driver::add.
    io_registration(int fd, interest what);
    io_registration(io_registration&& other) noexcept;
    io_registration& operator=(io_registration&& other) noexcept;
    ~io_registration() { reset(); }

    /// Deregisters (before the descriptor is closed). Idempotent. Only where
    /// the reactor may be used (see the class comment).
    void reset() noexcept;
    /// Deregisters, then closes `fd`, from any thread: at once where this
    /// thread may use the reactor, otherwise the worker that drives it does
    /// both when it next runs (a request in its inbox), so the descriptor's
    /// number is not reused before the reactor has let go of it.
    void reset_and_close(int fd) noexcept;
    /// Forgets the registration without telling the reactor (which is about
    /// to go with its runtime). Idempotent.
    void abandon() noexcept;
    explicit operator bool() const noexcept { return io_ != nullptr; }
    /// The readiness latched for `want` (plus hangup/error), or 0 after arming `w`.
    unsigned poll_ready(interest want, const waker& w) {
        if (!shared_) return io_->poll_ready(token_, want, w);
        return poll_ready_shared(want, w);
    }
    /// Forgets latched `bits` after an operation hit EAGAIN.
    void clear_ready(unsigned bits) noexcept {
        if (!shared_)
            io_->clear_ready(token_, bits);
        else
            clear_ready_shared(bits);
    }
    /// Drops the waker armed for `want`, unwoken (a wait that ended otherwise).
    void withdraw(interest want) noexcept;
    /// The I/O driver, for the reactor's extension interfaces; null when not registered.
    io_driver* driver() const noexcept { return io_; }
    /// Whether several threads share the reactor (multi-thread runtime): then
    /// only readiness is used, and readiness may be latched between an
    /// operation's EAGAIN and its clear_ready.
    bool shared() const noexcept { return shared_; }
    /// Changes the interest.
    void modify(interest what);

  private:
    unsigned poll_ready_shared(interest want, const waker& w);
    void clear_ready_shared(unsigned bits) noexcept;

    io_driver* io_ = nullptr;
    worker_group* group_ = nullptr;
    io_token token_ = 0;
    bool shared_ = false;
};

}  // namespace rtkit::detail
