#pragma once
// rtkit::join_handle<T>: awaits the outcome of a spawned task, or cancels it.
#include <atomic>
#include <coroutine>
#include <type_traits>
#include <utility>

#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/handle.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/task.hpp"

namespace rtkit {

namespace detail {

/// True once `t` finished (its outcome is set).
inline bool join_finished(const task_header* t) noexcept {
    return t->state.load(std::memory_order_acquire) & task_state::complete;
}

/// Publishes the current task as `t`'s joiner; false when `t` completed
/// meanwhile (then nothing will wake, and nothing needs to). The completing
/// side wakes the joiner only if it saw the join_waker bit, and the bit is set
/// only after the joiner was written. The joiner is kept in `t`'s extras, so
/// the first call for a task may throw std::bad_alloc; later calls do not.
inline bool join_install_waker(task_header* t) {
    using namespace task_state;
    if (t->state.fetch_and(~join_waker, std::memory_order_acq_rel) & complete) return false;
    task_extras& extras = t->get_extras();
    task_header* self = current_task();
    // Whoever takes a joiner out of the field owns its reference: a joiner
    // that went away is released here, unless the completion took it first
    // (and woke it, harmlessly).
    if (extras.joiner.load(std::memory_order_relaxed) != self) {
        RTKIT_CHAOS_POINT(joiner_installing);
        self->add_ref();
        if (task_header* previous = extras.joiner.exchange(self, std::memory_order_acq_rel))
            previous->release();
    }
    return !(t->state.fetch_or(join_waker, std::memory_order_acq_rel) & complete);
}

}  // namespace detail

/// Owns a reference to a spawned task and lets one awaiter take its outcome.
///
/// `co_await std::move(handle)` suspends until the task finished and returns
/// its outcome<T> (ok, err, cancelled or panicked), consuming the handle: the
/// finished task's frame, with its parameters, is released then. What the
/// task threw is in the outcome, not rethrown. The await is a cancellation
/// point of the awaiting task. Dropping a handle does not stop the task (its
/// region still waits for it); cancel() does. Any thread may await or cancel,
/// but like any object, not one thread cancelling while another consumes it.
template <class T>
class [[nodiscard]] join_handle {
  public:
    join_handle() noexcept = default;
    explicit join_handle(detail::promise<T>* task) noexcept : task_(task) {}
    join_handle(join_handle&& other) noexcept : task_(std::exchange(other.task_, nullptr)) {}
    join_handle& operator=(join_handle other) noexcept {
        std::swap(task_, other.task_);
        return *this;
    }
    ~join_handle() {
        if (task_) task_->release();
    }

    bool valid() const noexcept { return task_ != nullptr; }
    /// True once the task has finished (its outcome is ready).
    bool is_finished() const noexcept { return detail::join_finished(task_); }
    /// The task's id: the one it sees itself (cx::id), unique in the process
    /// and kept after it finished. The first call for a task allocates, so it
    /// may throw std::bad_alloc.
    task_id id() const { return task_->id(); }
    /// Requests cancellation: the task sees task_cancelled at its next await
    /// point, unwinds, and its outcome becomes cancelled(reason). No effect on a
    /// finished task. Returns at once (await the handle to see it finish).
    void cancel(cancel_reason reason = {}) const {
        if (!is_finished()) task_->home().request_cancel(task_, std::move(reason));
    }
    /// Lets the task run on with nobody waiting for its outcome; the handle
    /// is empty afterwards. It is what dropping the handle does, said out
    /// loud (join_handle is [[nodiscard]]): the task still belongs to its
    /// region, which waits for it and whose cancellation reaches it, and if
    /// it fails, the failure fails that region (cx::region), or outside any
    /// region goes to the diagnostic hook (set_diagnostic_hook), as every
    /// failure nobody takes does.
    void detach() noexcept {
        if (task_) std::exchange(task_, nullptr)->release();
    }
    /// The task record, for combinators.
    detail::promise<T>* record() const noexcept { return task_; }

    /// Awaitable of `co_await std::move(handle)`. On completion it moves the
    /// outcome out and releases the handle's reference: the handle is empty
    /// afterwards and the finished task's frame (its parameters with it) is
    /// gone. A cancelled await leaves the handle as it was.
    class awaiter : detail::leaf_check {
      public:
        explicit awaiter(join_handle& owner) noexcept : leaf_check{&leaf_ready}, owner_(owner) {}
        bool await_ready() const noexcept {
            if (detail::cancel_pending()) return true;
            // A finished task is joined at once, within the cooperative
            // budget: a task joining thousands of finished ones lets timers,
            // I/O and the other tasks in every so often.
            return detail::join_finished(owner_.task_) &&
                   detail::coop_continue(detail::current_task());
        }
        bool await_suspend(std::coroutine_handle<>) {
            if (detail::join_finished(owner_.task_)) {  // the budget is spent: a yield
                detail::suspend_as_yield();
                return true;
            }
            if (!detail::join_install_waker(owner_.task_)) return false;
            detail::task_header* self = detail::current_task();
            self->leaf = this;
            return true;
        }
        outcome<T> await_resume() {
            // Woken to unwind before the task finished.
            if (!detail::join_finished(owner_.task_)) detail::throw_cancelled();
            outcome<T> result = owner_.task_->take_result();
            detail::outcome_taken(*owner_.task_);
            std::exchange(owner_.task_, nullptr)->release();
            return result;
        }

      private:
        static bool leaf_ready(leaf_check& self) noexcept {
            detail::task_header* joined = static_cast<awaiter&>(self).owner_.task_;
            if (detail::join_finished(joined) || detail::cancel_pending()) return true;
            // No allocation: await_suspend gave the joined task its extras.
            return !detail::join_install_waker(joined);
        }
        join_handle& owner_;
    };
    awaiter operator co_await() && noexcept { return awaiter(*this); }
    /// Awaiting takes the task's outcome, so a handle is awaited as an rvalue:
    /// this overload exists only to say so when one is awaited by name.
    template <class U = T>
    awaiter operator co_await() const& noexcept {
        static_assert(!std::is_same_v<U, U>,
                      "write co_await std::move(handle): awaiting a join_handle takes the task's "
                      "outcome, so the handle must be moved from");
        return awaiter(const_cast<join_handle&>(*this));
    }

  private:
    detail::promise<T>* task_ = nullptr;
};

}  // namespace rtkit
