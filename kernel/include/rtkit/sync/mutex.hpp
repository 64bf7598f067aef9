#pragma once
// rtkit::sync::mutex<T>: an async mutex that owns the value it protects.
#include <cstddef>
#include <optional>
#include <utility>
#include <variant>

#include "rtkit/sync/semaphore.hpp"

namespace rtkit::sync {

/// Access to a locked mutex's value; unlocks when destroyed (or on unlock()).
/// Move-only. The next waiter, in FIFO order, gets the lock handed over.
template <class T>
class mutex_guard {
  public:
    mutex_guard(mutex_guard&&) noexcept = default;
    mutex_guard& operator=(mutex_guard&&) noexcept = default;

    T& operator*() const noexcept { return *value_; }
    T* operator->() const noexcept { return value_; }
    /// Unlocks before the guard goes out of scope; the guard is empty afterwards.
    void unlock() noexcept {
        permit_ = semaphore_permit();
        value_ = nullptr;
    }
    explicit operator bool() const noexcept { return static_cast<bool>(permit_); }

  private:
    template <class>
    friend class mutex;
    mutex_guard(semaphore_permit permit, T* value) noexcept
        : permit_(std::move(permit)), value_(value) {}
    semaphore_permit permit_;
    T* value_;
};

/// An async mutex around a T: `auto guard = co_await m.lock(); guard->...`.
/// Waiting tasks get the lock in the order they asked (FIFO handoff: an
/// unlock passes it straight to the first waiter, so a task that unlocks and
/// locks again in a loop cannot starve the others). Use mutex<> for a plain
/// lock with no value. Thread-safe; awaiting needs an rtkit task. Built on a
/// one-permit semaphore, so it shares its queue and cancellation rules.
template <class T = std::monostate>
class mutex {
  public:
    template <class... Args>
    explicit mutex(Args&&... args) : value_(std::forward<Args>(args)...) {}
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;

    /// Awaitable of lock().
    class lock_awaiter {
      public:
        explicit lock_awaiter(mutex& owner) noexcept : owner_(owner), inner_(owner.gate_, 1) {}
        bool await_ready() { return inner_.await_ready(); }
        void await_suspend(std::coroutine_handle<> h) noexcept { inner_.await_suspend(h); }
        mutex_guard<T> await_resume() {
            return mutex_guard<T>(inner_.await_resume(), &owner_.value_);
        }

      private:
        mutex& owner_;
        semaphore::acquire_awaiter inner_;
    };

    /// `auto guard = co_await m.lock()`: waits for the lock, FIFO. A
    /// cancellation point: cancelled while waiting, it does not hold the lock
    /// (a handoff that raced with the cancel passes on to the next waiter).
    [[nodiscard]] lock_awaiter lock() noexcept { return lock_awaiter(*this); }

    /// The lock if it is free and nobody waits for it; never waits.
    std::optional<mutex_guard<T>> try_lock() noexcept {
        std::optional<semaphore_permit> permit = gate_.try_acquire(1);
        if (!permit) return std::nullopt;
        return mutex_guard<T>(std::move(*permit), &value_);
    }

    /// The value without locking, for when no task can use the mutex (set-up,
    /// tear-down).
    T& get_unsynchronized() noexcept { return value_; }

  private:
    semaphore gate_{1};
    T value_;
};

}  // namespace rtkit::sync
