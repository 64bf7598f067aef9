#pragma once
// rtkit::sync::semaphore: counted permits for tasks, handed out in FIFO order.
#include <coroutine>
#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/permit_queue.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

class semaphore;

/// Permits taken from a semaphore, given back when this is destroyed (RAII).
/// Move-only; an empty one (default constructed, moved from, or forgotten)
/// gives back nothing.
class semaphore_permit {
  public:
    semaphore_permit() noexcept = default;
    semaphore_permit(semaphore_permit&& other) noexcept
        : owner_(std::exchange(other.owner_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    semaphore_permit& operator=(semaphore_permit other) noexcept {
        std::swap(owner_, other.owner_);
        std::swap(count_, other.count_);
        return *this;
    }
    inline ~semaphore_permit();

    /// How many permits this holds.
    std::size_t count() const noexcept { return count_; }
    explicit operator bool() const noexcept { return owner_ != nullptr; }
    /// Keeps the permits taken for good: the semaphore's count shrinks by them.
    void forget() noexcept {
        owner_ = nullptr;
        count_ = 0;
    }

  private:
    friend class semaphore;
    semaphore_permit(semaphore& owner, std::size_t count) noexcept
        : owner_(&owner), count_(count) {}
    semaphore* owner_ = nullptr;
    std::size_t count_ = 0;
};

/// An async counting semaphore. acquire(n) waits until n permits are free and
/// everyone who asked earlier was served (strict FIFO, so a large request is
/// not starved by small ones; try_acquire does not jump the line either).
/// Thread-safe; awaiting needs an rtkit task. Must outlive its permits and
/// waiters.
class semaphore {
  public:
    explicit semaphore(std::size_t permits) noexcept : permits_(permits) {}
    semaphore(const semaphore&) = delete;
    semaphore& operator=(const semaphore&) = delete;

    /// Awaitable of acquire(n).
    class acquire_awaiter {
      public:
        acquire_awaiter(semaphore& owner, std::size_t n) noexcept : owner_(owner) {
            node_.amount = n;
        }
        acquire_awaiter(const acquire_awaiter&) = delete;
        acquire_awaiter& operator=(const acquire_awaiter&) = delete;
        ~acquire_awaiter() { owner_.abandon(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            std::unique_lock guard(owner_.lock_);
            if (owner_.permits_.try_acquire(node_.amount)) {
                acquired_ = true;
                return rtkit::detail::coop_continue(task_);
            }
            detail::require_task(task_);  // throws (and unlocks) outside a task
            // Keep the lock into await_suspend: checking and queueing are then
            // one critical section, and the fast path takes the lock only once.
            guard.release();
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (acquired_) return rtkit::detail::suspend_as_yield();
            detail::arm(node_, task_);
            owner_.permits_.enqueue(node_);
            owner_.lock_.unlock();
        }
        semaphore_permit await_resume() {
            if (!acquired_) {
                detail::check_cancel(task_);  // the destructor returns permits granted meanwhile
                owner_.claim(node_);
            }
            return semaphore_permit(owner_, node_.amount);
        }

      private:
        semaphore& owner_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        bool acquired_ = false;
    };

    /// `auto permit = co_await sem.acquire(n)`: waits for `n` permits in FIFO
    /// order. A cancellation point: cancelled while waiting, it holds nothing
    /// (permits granted meanwhile go to the next in line).
    [[nodiscard]] acquire_awaiter acquire(std::size_t n = 1) noexcept {
        return acquire_awaiter(*this, n);
    }

    /// Takes `n` permits if they are free and nobody waits; never waits.
    std::optional<semaphore_permit> try_acquire(std::size_t n = 1) noexcept {
        std::lock_guard guard(lock_);
        if (!permits_.try_acquire(n)) return std::nullopt;
        return semaphore_permit(*this, n);
    }

    /// Adds `n` permits (a semaphore_permit does this when destroyed) and
    /// serves the waiters they satisfy, in order.
    void release(std::size_t n) noexcept {
        detail::pending_wakes wakes;
        std::lock_guard guard(lock_);
        permits_.release(n, wakes);
    }

    /// Permits free now (they may already be promised to nobody but a newcomer).
    std::size_t available_permits() const noexcept {
        std::lock_guard guard(lock_);
        return permits_.available();
    }

  private:
    /// After a waiter's resume (no cancel): makes its grant its own.
    void claim(detail::waiter& w) {
        if (w.state.load(std::memory_order_acquire) == detail::wait_state::queued) {
            abandon(w);  // resumed without a grant: leave the line and unwind
            rtkit::detail::throw_cancelled();
        }
        w.state.store(detail::wait_state::idle, std::memory_order_relaxed);
    }
    /// A waiter stops waiting without using its grant: leaves the line, or
    /// gives the permits it was granted to the next in line.
    void abandon(detail::waiter& w) noexcept {
        if (w.state.load(std::memory_order_relaxed) == detail::wait_state::idle) return;
        detail::pending_wakes wakes;
        std::lock_guard guard(lock_);
        if (w.state.load(std::memory_order_relaxed) == detail::wait_state::queued)
            permits_.remove(w, wakes);
        else if (w.state.load(std::memory_order_relaxed) == detail::wait_state::granted)
            permits_.release(w.amount, wakes);
        w.state.store(detail::wait_state::idle, std::memory_order_relaxed);
    }

    mutable detail::spin_lock lock_;
    detail::permit_queue permits_;
};

semaphore_permit::~semaphore_permit() {
    if (owner_) owner_->release(count_);
}

}  // namespace rtkit::sync
