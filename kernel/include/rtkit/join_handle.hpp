#pragma once
// rtkit::join_handle<T>: awaits the outcome of a spawned task.
#include <atomic>
#include <coroutine>
#include <utility>

#include "rtkit/task.hpp"

namespace rtkit {

/// Owns a reference to a spawned task and lets one awaiter take its outcome.
/// `co_await std::move(handle)` suspends until the task finished and returns
/// its outcome<T> (ok, err, cancelled or panicked); it never throws what the task
/// threw. Dropping a handle does not stop the task. Any thread may await it.
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
    bool is_finished() const noexcept {
        return task_->state.load(std::memory_order_acquire) & detail::task_state::complete;
    }
    /// The task's id in its runtime's store (stale once it finished).
    task_id id() const noexcept { return task_->id; }

    auto operator co_await() && noexcept {
        struct awaiter {
            detail::promise<T>* task;
            bool await_ready() const noexcept { return finished(task); }
            bool await_suspend(std::coroutine_handle<>) noexcept {
                if (!install_waker(task)) return false;
                detail::task_header* self = detail::current_task();
                self->leaf_ready = &leaf_ready;
                self->leaf = task;
                return true;
            }
            outcome<T> await_resume() {
                if (!finished(task)) detail::throw_cancelled();  // woken by a cancel request
                return std::move(task->result);
            }

            static bool finished(detail::task_header* t) noexcept {
                return t->state.load(std::memory_order_acquire) & detail::task_state::complete;
            }
            /// Publishes the current task's waker to the joined task; false when
            /// the joined task completed meanwhile (then nothing waits).
            static bool install_waker(detail::task_header* t) noexcept {
                using namespace detail::task_state;
                if (t->state.fetch_and(~join_waker, std::memory_order_acq_rel) & complete)
                    return false;
                t->join_waker = detail::current_task()->make_waker();
                return !(t->state.fetch_or(join_waker, std::memory_order_acq_rel) & complete);
            }
            static bool leaf_ready(void* t) noexcept {
                auto* joined = static_cast<detail::task_header*>(t);
                return finished(joined) || detail::cancel_pending() || !install_waker(joined);
            }
        };
        return awaiter{task_};
    }

  private:
    detail::promise<T>* task_ = nullptr;
};

}  // namespace rtkit
