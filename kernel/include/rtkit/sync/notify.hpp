#pragma once
// rtkit::sync::notify: wakes waiting tasks without passing data (tokio's Notify).
#include <coroutine>
#include <cstdint>
#include <mutex>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

/// A wake-up signal for tasks. notify_one() wakes the longest-waiting task, or,
/// when none waits, stores a single permit that the next notified() consumes at
/// once (so a notification sent just before someone waits is not lost; several
/// such notifications still store only one). notify_all() wakes every task
/// waiting at that moment and stores nothing. Thread-safe; awaiting needs an
/// rtkit task. Must outlive its waiters.
class notify {
  public:
    notify() = default;
    notify(const notify&) = delete;
    notify& operator=(const notify&) = delete;

    /// Awaitable of notified().
    class notified_awaiter {
      public:
        explicit notified_awaiter(notify& owner) noexcept : owner_(owner) {}
        notified_awaiter(const notified_awaiter&) = delete;
        notified_awaiter& operator=(const notified_awaiter&) = delete;
        ~notified_awaiter() { owner_.abandon(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            std::unique_lock guard(owner_.lock_);
            if (owner_.permit_) {
                owner_.permit_ = false;
                done_ = true;
                return rtkit::detail::coop_continue(task_);
            }
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with await_suspend's queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (done_) return rtkit::detail::suspend_as_yield();
            detail::arm(node_, task_);
            owner_.waiters_.push_back(node_);
            owner_.lock_.unlock();
        }
        void await_resume() {
            if (done_) return;
            detail::check_cancel(task_);  // the destructor passes a notify_one on
            if (node_.state.load(std::memory_order_acquire) == detail::wait_state::queued) {
                owner_.abandon(node_);  // resumed without a notification: unwind
                rtkit::detail::throw_cancelled();
            }
            node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
        }

      private:
        notify& owner_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        bool done_ = false;
    };

    /// `co_await n.notified()`: waits for a notification (or takes the stored
    /// permit). A cancellation point: a notify_one that reached a waiter which
    /// was cancelled before it resumed is passed on to the next waiter (or
    /// stored), so it is never lost.
    [[nodiscard]] notified_awaiter notified() noexcept { return notified_awaiter(*this); }

    /// Wakes the first waiter, or stores the permit when nobody waits.
    void notify_one() noexcept {
        detail::pending_wakes wakes;
        std::lock_guard guard(lock_);
        notify_one_locked(wakes);
    }

    /// Wakes every task waiting now; stores no permit.
    void notify_all() noexcept {
        detail::pending_wakes wakes;
        std::lock_guard guard(lock_);
        while (detail::waiter* w = waiters_.pop_front()) {
            w->how = by_all;
            detail::settle(*w, detail::wait_state::granted, wakes);
        }
    }

  private:
    static constexpr std::uint8_t by_one = 0;
    static constexpr std::uint8_t by_all = 1;

    void notify_one_locked(detail::pending_wakes& wakes) noexcept {
        if (detail::waiter* w = waiters_.pop_front()) {
            w->how = by_one;
            detail::settle(*w, detail::wait_state::granted, wakes);
        } else {
            permit_ = true;
        }
    }
    /// A waiter stops waiting: it leaves the line, or passes on the
    /// notify_one it received and will not act on.
    void abandon(detail::waiter& w) noexcept {
        if (w.state.load(std::memory_order_relaxed) == detail::wait_state::idle) return;
        detail::pending_wakes wakes;
        std::lock_guard guard(lock_);
        if (w.state.load(std::memory_order_relaxed) == detail::wait_state::queued)
            waiters_.remove(w);
        else if (w.how == by_one)
            notify_one_locked(wakes);
        w.state.store(detail::wait_state::idle, std::memory_order_relaxed);
    }

    detail::spin_lock lock_;
    detail::waiter_queue waiters_;  ///< guarded by lock_
    bool permit_ = false;           ///< guarded by lock_
};

}  // namespace rtkit::sync
