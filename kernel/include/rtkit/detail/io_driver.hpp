#pragma once
// rtkit::detail::io_driver: the kernel's side of a reactor plugin.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/detail/io_waiter.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

/// The kernel's side of the reactor: every registration with its interest,
/// latched readiness and waiting tasks (the rules of rtkit/reactor.hpp), over
/// the reactor plugin that watches the descriptors and delivers what it sees.
/// One per runtime. One thread at a time calls every method but wake() and
/// the reactor lock's (the thread driving the worker, or, in the multi-thread
/// flavor, whoever holds the reactor lock below); those may be called from
/// any thread.
///
/// Any number of tasks may wait on one registration (io_waiter): a delivery
/// wakes every waiter of the directions it answers, and the first to act
/// takes what is there; the others meet EAGAIN and wait again.
class io_driver final : public readiness_sink {
  public:
    /// `name` names the plugin in errors, e.g. "epoll (/path/rtkit_reactor_epoll.so)".
    explicit io_driver(std::shared_ptr<reactor> backend, std::string name = "the reactor");
    io_driver(const io_driver&) = delete;
    io_driver& operator=(const io_driver&) = delete;

    /// Registers `fd` for `what`. Throws std::system_error: EMFILE beyond the
    /// backend's declared limits, EBADF for a negative or closed descriptor,
    /// EEXIST when `fd` is registered already, or the backend's own error.
    io_token add(int fd, interest what);
    /// Changes what `token` is registered for (which deliveries poll() counts);
    /// latched bits and waiters stay. ENOENT when stale.
    void modify(io_token token, interest what);
    /// Ends the registration, and with it every wait on it: an operation
    /// still submitted to a completion reactor is cancelled (its completion
    /// reaped), then every waiter is unlinked and woken, to find its
    /// descriptor closed. Nothing is delivered for `token` afterwards. A stale
    /// token is ignored.
    void remove(io_token token) noexcept;

    /// The latched readiness that answers `want` (hang-up and error always
    /// do). When there is none, links `w` (unless it is linked already),
    /// waiting for `want`, to be woken through `wake` (borrowed: the caller
    /// keeps its target alive while `w` is linked), asks the backend to
    /// watch, and returns 0. A stale token returns ready::error.
    unsigned poll_ready(io_token token, interest want, io_waiter& w, const waker& wake) {
        entry* r = table_.find(token);
        if (!r) return ready::error;
        if (const unsigned bits = latched_for(*r, want)) return bits;
        if (!w.linked()) {
            watch_in_backend(r->fd, token, want);  // first: it may throw
            link(*r, token, w, wake);
            w.want_ = static_cast<std::uint8_t>(want);
        }
        return 0;
    }
    /// The latched readiness that answers `want`, without waiting; ready::error
    /// for a stale token.
    unsigned latched(io_token token, interest want) noexcept {
        const entry* r = table_.find(token);
        return r ? latched_for(*r, want) : ready::error;
    }
    /// Links `w` as waiting for `done`, an operation submitted to the
    /// backend's completion interface for `token`, so that remove() can end
    /// it. Its completion wakes the task as usual; unlink with withdraw().
    void track(io_token token, io_waiter& w, io_completion& done, const waker& wake) noexcept {
        if (entry* r = table_.find(token)) {
            link(*r, token, w, wake);
            w.completion_ = &done;
        }
    }
    /// Unlinks `w` without waking it (a wait that ended otherwise). Does
    /// nothing when it is not linked.
    void withdraw(io_waiter& w) noexcept {
        if (!w.linked()) return;
        io_waiter*& head = table_.find(w.token_)->extra.head;
        unlink(head, w);
    }
    /// Forgets latched `bits` after an operation met EAGAIN.
    void clear_ready(io_token token, unsigned bits) noexcept {
        if (entry* r = table_.find(token)) r->latched &= ~bits;
    }
    /// Latches `bits` again (see io_registration::latch_again).
    void latch_again(io_token token, unsigned bits) noexcept {
        if (entry* r = table_.find(token)) r->latched |= bits;
    }

    /// Waits up to `timeout` in the backend (negative: no limit), latching what
    /// it delivers and waking the tasks waiting for it. Returns how many
    /// registrations became ready plus how many completions woke a task.
    std::size_t poll(duration timeout);
    /// Any thread: makes a blocking poll() return.
    void wake() noexcept { backend_->wake(); }

    /// The plugin object, for its extension interfaces (query_interface).
    reactor& backend() const noexcept { return *backend_; }

    /// True when only one thread may ever drive the backend
    /// (thread_bound_reactor_name).
    bool thread_bound() const noexcept { return thread_bound_; }
    /// Whether the calling thread may drive the backend: always, unless it is
    /// thread-bound; then the first thread to ask becomes its only driver.
    bool claim_for_this_thread() noexcept;

    // A backend that runs cheaper while one thread drives it
    // (driver_handoff_v1) is told to share when a second thread is about to.

    /// Called by a thread that has just taken the right to drive the backend
    /// (it holds the worker): true when it may drive it, the backend having
    /// been shared if another thread drove it before. False when sharing
    /// failed (share_error() says why).
    bool begin_driving_here() noexcept {
        if (!handoff_ || shared_.load(std::memory_order_acquire)) return true;
        return begin_driving_unshared();
    }
    /// Called by the thread driving the backend before another thread may
    /// take over while it still holds registrations (the current-thread
    /// runtime's background thread): shares it now, when this thread still
    /// can. False when sharing failed.
    bool share_before_handoff() noexcept;
    /// Whether a thread other than the one driving the backend now may ever
    /// drive it: not for a thread-bound backend, nor one that failed to share.
    bool other_threads_may_drive() const noexcept {
        return !thread_bound_ && !share_failed_.load(std::memory_order_acquire);
    }
    /// Why sharing the backend failed, once it did.
    const std::string& share_error() const noexcept { return share_error_; }

    // The reactor lock: where several threads may call the backend (the
    // multi-thread flavor's workers, and block_on callers on other threads),
    // every call but wake() is made holding it. One parked worker blocks in
    // poll() holding it for everybody's I/O; the others wait elsewhere.

    /// Takes the lock. A thread that finds it held (maybe by a worker blocked
    /// in poll()) wakes the backend and counts as waiting, so that no worker
    /// blocks in poll() again meanwhile; the wait is marked on the activity
    /// board of the worker it drives, if any.
    void lock_calls();
    void unlock_calls() noexcept { calls_.unlock(); }
    /// Takes the lock only if it is free now (a poll with no timeout, which
    /// gives up rather than wait for a worker in the reactor).
    bool try_lock_calls() noexcept { return calls_.try_lock(); }
    /// Tries to become the worker that blocks in poll() for everybody's I/O:
    /// false when another one already is, or a thread waits for the lock.
    /// Then unlock_after_blocking_poll() after the wait.
    bool try_lock_for_blocking_poll() noexcept {
        if (waiting_for_calls_.load(std::memory_order_acquire) != 0 || !calls_.try_lock())
            return false;
        blocking_poller_.store(true, std::memory_order_seq_cst);
        return true;
    }
    void unlock_after_blocking_poll() noexcept {
        blocking_poller_.store(false, std::memory_order_seq_cst);
        calls_.unlock();
    }
    /// Whether a worker blocks in poll() holding the lock now. When a thread
    /// that took the lock for another call releases it and none does, the
    /// runtime wakes a parked worker to take that place: otherwise readiness
    /// would wait for a worker to run out of work.
    bool has_blocking_poller() const noexcept {
        return blocking_poller_.load(std::memory_order_seq_cst);
    }

  private:
    /// A registration's waiting tasks, linked through their io_waiter.
    struct waiter_list {
        io_waiter* head = nullptr;
    };
    using table = reactor_support::registration_table<waiter_list>;
    using entry = table::entry;

    /// Hang-up and error concern every direction, so they always answer.
    static constexpr unsigned always_reported = ready::hangup | ready::error;
    static unsigned latched_for(const entry& r, interest want) noexcept {
        return r.latched & (static_cast<unsigned>(want) | always_reported);
    }
    void link(entry& r, io_token token, io_waiter& w, const waker& wake) noexcept {
        w.driver_ = this;
        w.token_ = token;
        w.wake_data_ = wake.data();
        w.wake_vtable_ = wake.vtable();
        w.completion_ = nullptr;
        w.prev_ = nullptr;
        w.next_ = r.extra.head;
        if (w.next_) w.next_->prev_ = &w;
        r.extra.head = &w;
    }
    static void unlink(io_waiter*& head, io_waiter& w) noexcept {
        if (w.prev_)
            w.prev_->next_ = w.next_;
        else
            head = w.next_;
        if (w.next_) w.next_->prev_ = w.prev_;
        w.prev_ = w.next_ = nullptr;
        w.driver_ = nullptr;
    }
    /// Unlinks `w` and wakes its task. `w` may be gone once this returns.
    static void wake_unlinked(io_waiter*& head, io_waiter& w) noexcept;

    void deliver(io_token token, unsigned bits) noexcept override;
    /// backend_->watch(), marked on the calling worker's activity board.
    void watch_in_backend(int fd, io_token token, interest want);
    [[noreturn]] void refuse(const std::string& why) const;
    bool begin_driving_unshared() noexcept;
    bool share() noexcept;

    std::shared_ptr<reactor> backend_;
    std::string name_;
    reactor_limits limits_;
    const bool thread_bound_;
    /// The backend's completion interface, or null.
    completion_reactor_v1* const completions_;
    /// The one driver of a thread-bound backend once claimed (a number no
    /// other thread of the process ever has, unlike a std::thread::id, which
    /// a new thread may reuse), or 0.
    std::atomic<std::uint64_t> home_{0};
    /// The backend's driver_handoff_v1, or null.
    driver_handoff_v1* const handoff_;
    /// The first thread that drove a handoff backend (as home_), or 0.
    std::atomic<std::uint64_t> first_driver_{0};
    std::atomic<bool> shared_{false};        ///< handoff_->share() succeeded
    std::atomic<bool> share_failed_{false};  ///< ...or threw share_error_
    std::string share_error_;
    table table_;
    std::size_t became_ready_ = 0;  ///< counted by deliver() during one poll()
    /// The reactor lock, the threads waiting for it, and whether a worker
    /// blocks in poll() holding it.
    std::mutex calls_;
    std::atomic<int> waiting_for_calls_{0};
    std::atomic<bool> blocking_poller_{false};
};

}  // namespace rtkit::detail
