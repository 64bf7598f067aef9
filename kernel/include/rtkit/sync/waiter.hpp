#pragma once
// The intrusive wait-queue node every sync awaiter embeds, the FIFO list of
// them, and how a suspending awaiter hooks into the worker's leaf check.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rtkit/cx.hpp"
#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::sync::detail {

/// Where a waiter stands. Only the primitive's lock holder moves a waiter out of
/// `queued`; only the waiting awaiter moves it back to `idle`.
enum class wait_state : std::uint8_t {
    idle,     ///< in no queue: never waited, or consumed what it was given
    queued,   ///< in the primitive's queue, its waker armed
    granted,  ///< handed what it waited for (a permit, a value, a notification)
    closed,   ///< the primitive closed under it (a channel's receiver went away)
};

/// One waiting awaiter. It lives inside the awaiter, in the coroutine frame, so
/// waiting allocates nothing; the awaiter removes it in its destructor if it is
/// still queued, which is what makes every wait cancellable.
struct waiter : rtkit::detail::leaf_check {
    waiter() noexcept : leaf_check{&settled_or_cancelled} {}

    waiter* prev = nullptr;
    waiter* next = nullptr;
    /// The waiting task. Not a reference: the node lives in that task's frame,
    /// and the frame cannot go before the node left its queue under the
    /// primitive's lock (the awaiter's destructor and await_resume see to it).
    rtkit::detail::task_header* task = nullptr;
    /// Written under the primitive's lock, read without it by the leaf check.
    std::atomic<wait_state> state{wait_state::idle};
    /// How many permits the waiter asks for (semaphore) or was given.
    std::size_t amount = 1;
    /// Primitive-specific detail of the grant (notify: by notify_one or notify_all).
    std::uint8_t how = 0;

    bool settled() const noexcept {
        return state.load(std::memory_order_acquire) >= wait_state::granted;
    }
    /// The leaf check of a queued waiter: resume once it is settled or the
    /// task has a cancel request; any other wake leaves the task suspended
    /// (its waker stays armed in the node, so nothing needs re-arming).
    static bool settled_or_cancelled(leaf_check& self) noexcept {
        return static_cast<waiter&>(self).settled() || rtkit::detail::cancel_pending();
    }
};

/// A FIFO of waiters, linked through the nodes themselves. Not thread-safe: the
/// primitive's lock guards it.
class waiter_queue {
  public:
    bool empty() const noexcept { return head_ == nullptr; }
    waiter* front() const noexcept { return head_; }

    void push_back(waiter& w) noexcept {
        w.prev = tail_;
        w.next = nullptr;
        if (tail_)
            tail_->next = &w;
        else
            head_ = &w;
        tail_ = &w;
        w.state.store(wait_state::queued, std::memory_order_relaxed);
    }
    void remove(waiter& w) noexcept {
        (w.prev ? w.prev->next : head_) = w.next;
        (w.next ? w.next->prev : tail_) = w.prev;
        w.prev = w.next = nullptr;
    }
    waiter* pop_front() noexcept {
        waiter* w = head_;
        if (w) remove(*w);
        return w;
    }
    std::size_t size() const noexcept {
        std::size_t n = 0;
        for (waiter* w = head_; w; w = w->next)
            ++n;
        return n;
    }

  private:
    waiter* head_ = nullptr;
    waiter* tail_ = nullptr;
};

/// Wakers taken under a primitive's lock, fired when this goes out of scope.
/// Declare it before the lock guard: wakes then happen after the unlock, so a
/// woken task on another thread never spins on the lock we still hold.
class pending_wakes {
  public:
    pending_wakes() = default;
    pending_wakes(const pending_wakes&) = delete;
    pending_wakes& operator=(const pending_wakes&) = delete;
    ~pending_wakes() {
        first_.wake();
        for (waker& w : rest_)
            w.wake();
    }
    /// Out of memory while growing is fatal (std::terminate), as in the
    /// kernel's own wake path: a lost wake would hang a task silently.
    void add(waker w) noexcept {
        if (!first_)
            first_ = std::move(w);
        else
            rest_.push_back(std::move(w));
    }

  private:
    waker first_;
    std::vector<waker> rest_;
};

/// Settles `w` (granted or closed) and wakes its task. The lock holder calls it
/// after unlinking `w`. A task polled by the worker this thread holds is woken
/// at once: it cannot run before we return, and it cannot end while its node is
/// settling under our lock. Any other task gets a waker (a reference) fired by
/// `wakes` after the unlock. After the store the awaiter may resume (the leaf
/// check reads the state without the lock), so `w` is not touched again.
inline void settle(waiter& w, wait_state how, pending_wakes& wakes) noexcept {
    if (rtkit::detail::wake_if_polled_here(w.task)) {
        w.state.store(how, std::memory_order_release);
        return;
    }
    waker to_wake = w.task->make_waker();
    w.state.store(how, std::memory_order_release);
    wakes.add(std::move(to_wake));
}

/// The cancellation checks of an await point, on the task an awaiter captured
/// once in await_ready: each detail::current_task() is a call into the kernel
/// and a TLS lookup, and W4 would pay four per wait. Same test as
/// detail::cancel_pending()/check_cancel(): a coroutine stays in one task.
inline bool cancel_pending(const rtkit::detail::task_header* task) noexcept {
    return task &&
           (task->state.load(std::memory_order_relaxed) & rtkit::detail::task_state::interrupted);
}
inline void check_cancel(const rtkit::detail::task_header* task) {
    if (cancel_pending(task)) rtkit::detail::throw_cancelled();
}

/// For an awaiter about to suspend: throws no_runtime_error when there is no
/// task to suspend (sync primitives wait only inside rtkit tasks).
inline void require_task(const rtkit::detail::task_header* task) {
    if (!task) throw no_runtime_error("a sync primitive was awaited outside an rtkit task");
}

/// Arms `w` for `task` and installs the leaf check. Call with the primitive's
/// lock held, just before (or after) linking `w` into the queue.
inline void arm(waiter& w, rtkit::detail::task_header* task) noexcept {
    w.task = task;
    task->leaf = &w;
}

}  // namespace rtkit::sync::detail
