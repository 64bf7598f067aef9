#pragma once
// The kernel's seam to the reactor for I/O awaitables (rtkit::net builds on it).
// Not API for applications; plugin and I/O code in the kernel use it.

#include "rtkit/detail/io_driver.hpp"
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class handle;

/// The running task's waker, lent without taking a reference: for an
/// io_waiter, which the task unlinks before it goes. Saves a reference count
/// up and down per wait on the I/O hot path.
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
/// current task's runtime, through its handle (handle::register_io).
/// In the current-thread flavor every operation must run on the thread that
/// drives the worker (a task's poll, or a block_on root driving it); in the
/// multi-thread flavor the reactor is shared and any of the runtime's threads
/// may use it (each call is serialised with the others). Which thread may is
/// the handle's to say (handle::may_call_reactor_here).
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
    /// both when it next runs (handle::close_io), so the descriptor's number
    /// is not reused before the reactor has let go of it.
    void reset_and_close(int fd) noexcept;
    /// Forgets the registration without telling the reactor (which is about
    /// to go with its runtime). Idempotent.
    void abandon() noexcept;
    explicit operator bool() const noexcept { return io_ != nullptr; }
    /// False where this thread may not use the reactor now: the current-thread
    /// flavor, on a thread that does not drive the worker (a block_on whose
    /// root is polled while another thread holds the worker).
    bool usable_here() const noexcept;

    /// The latched readiness that answers `want` (plus hangup/error), or 0
    /// after linking `w` to be woken through `wake` (see io_driver::poll_ready).
    unsigned poll_ready(interest want, io_waiter& w, const waker& wake) {
        if (!shared_) return io_->poll_ready(token_, want, w, wake);
        return poll_ready_shared(want, w, wake);
    }
    /// Forgets latched `bits` after an operation hit EAGAIN.
    void clear_ready(unsigned bits) noexcept {
        if (!shared_)
            io_->clear_ready(token_, bits);
        else
            clear_ready_shared(bits);
    }
    /// Latches `bits` again. With a shared reactor an operation retries once
    /// after its clear_ready (readiness latched between its EAGAIN and the
    /// clear is gone); when that retry transfers data, the descriptor may
    /// hold more, and with edge-triggered readiness no new edge says so.
    void latch_again(unsigned bits) noexcept;
    /// Links `w` as waiting for `done`, submitted to the completion interface
    /// (never shared), so that closing the descriptor ends it.
    void track(io_waiter& w, io_completion& done, const waker& wake) noexcept {
        io_->track(token_, w, done, wake);
    }
    /// Unlinks `w` unwoken (a wait that ended otherwise), if it is linked. Also
    /// after the registration was reset or moved away.
    void withdraw(io_waiter& w) noexcept {
        if (!shared_) {
            if (io_driver* io = w.driver()) io->withdraw(w);
        } else {
            withdraw_shared(w);
        }
    }
    /// The I/O driver, for the reactor's extension interfaces; null when not registered.
    io_driver* driver() const noexcept { return io_; }
    /// Whether several threads share the reactor (multi-thread runtime): then
    /// only readiness is used, and readiness may be latched between an
    /// operation's EAGAIN and its clear_ready.
    bool shared() const noexcept { return shared_; }
    /// Changes the interest.
    void modify(interest what);

  private:
    unsigned poll_ready_shared(interest want, io_waiter& w, const waker& wake);
    void clear_ready_shared(unsigned bits) noexcept;
    void withdraw_shared(io_waiter& w) noexcept;

    io_driver* io_ = nullptr;
    handle* handle_ = nullptr;  ///< of the registering task's worker: the way into its runtime
    io_token token_ = 0;
    bool shared_ = false;
};

}  // namespace rtkit::detail
