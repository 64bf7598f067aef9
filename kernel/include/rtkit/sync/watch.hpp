#pragma once
// rtkit::sync::watch<T>: one value that changes over time; receivers see the
// latest one and can wait for the next change.
#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

template <class T>
class watch_sender;
template <class T>
class watch_receiver;

namespace detail {

struct watch_factory;

/// The state a watch's ends share: the value, its version (how many times
/// it was sent), and the receivers waiting for a version they have not seen.
template <class T>
class watch_state {
  public:
    explicit watch_state(T initial) : value(std::move(initial)) {}

    spin_lock lock;
    // Guarded by lock:
    T value;
    std::uint64_t version = 0;
    std::size_t receivers = 0;
    waiter_queue waiting;

    /// Under lock: a new value; wakes every waiting receiver. Returns the
    /// value it replaced.
    template <class U>
    T replace(U&& fresh, pending_wakes& wakes) {
        T next(std::forward<U>(fresh));  // a copy that throws changes nothing
        T old = std::exchange(value, std::move(next));
        ++version;
        wake_all(wakes);
        return old;
    }
    /// Under lock.
    void wake_all(pending_wakes& wakes) noexcept {
        while (waiter* w = waiting.pop_front())
            settle(*w, wait_state::granted, wakes);
    }
    /// A wait ends unused: a queued waiter leaves the line. A granted one
    /// took nothing (the change it was woken for stays unseen).
    void abandon(waiter& w) noexcept {
        if (w.state.load(std::memory_order_acquire) == wait_state::idle) return;
        std::lock_guard guard(lock);
        stop_waiting(w);
    }
    /// Under lock: `w` is out of the line and idle.
    void stop_waiting(waiter& w) noexcept {
        if (w.state.load(std::memory_order_relaxed) == wait_state::queued) waiting.remove(w);
        w.state.store(wait_state::idle, std::memory_order_relaxed);
    }

    /// Sender handles, changed without the lock; whoever drops the last one
    /// takes the lock to wake the receivers.
    std::atomic<std::size_t> senders{1};
    void drop_sender() noexcept {
        if (senders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        pending_wakes wakes;
        std::lock_guard guard(lock);
        wake_all(wakes);
    }

    /// Every sender and every receiver holds one reference.
    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  private:
    std::atomic<int> refs_{0};
};

}  // namespace detail

/// The sending end of a watch. Copyable; the receivers see the end once every
/// copy is gone. Sending never waits. Any thread may use it.
template <class T>
class watch_sender {
  public:
    watch_sender(const watch_sender& other) noexcept : state_(other.state_) {
        if (!state_) return;
        state_->senders.fetch_add(1, std::memory_order_relaxed);
        state_->add_ref();
    }
    watch_sender(watch_sender&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    watch_sender& operator=(watch_sender other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~watch_sender() {
        if (!state_) return;
        state_->drop_sender();
        state_->release();
    }

    /// Makes `value` the current value and wakes the receivers waiting for a
    /// change. False when there is no receiver: then nothing changed and
    /// `value` was not moved from (send_replace stores it anyway).
    bool send(T&& value) { return send_impl(std::move(value)); }
    bool send(const T& value) { return send_impl(value); }

    /// Makes `value` the current value whether or not anyone receives, wakes
    /// the waiting receivers, and returns the value it replaced.
    T send_replace(T value) {
        detail::pending_wakes wakes;
        std::lock_guard guard(state_->lock);
        return state_->replace(std::move(value), wakes);
    }

    /// A copy of the current value.
    T value() const {
        std::lock_guard guard(state_->lock);
        return state_->value;
    }
    /// A new receiver, which has seen the current value.
    watch_receiver<T> subscribe() { return watch_receiver<T>(state_); }
    std::size_t receiver_count() const {
        std::lock_guard guard(state_->lock);
        return state_->receivers;
    }

  private:
    friend struct detail::watch_factory;
    explicit watch_sender(detail::watch_state<T>* state) noexcept : state_(state) {
        state_->add_ref();
    }
    template <class U>
    bool send_impl(U&& value) {
        detail::pending_wakes wakes;
        std::optional<T> old;  // destroyed after the unlock
        std::lock_guard guard(state_->lock);
        if (state_->receivers == 0) return false;
        old.emplace(state_->replace(std::forward<U>(value), wakes));
        return true;
    }

    detail::watch_state<T>* state_;
};

/// A receiving end of a watch: it reads the current value and waits for
/// changes it has not seen. Each receiver remembers which version it saw
/// last; a copy starts with the same. One task at a time waits through one
/// receiver; it must outlive the co_await of its changed(). Any thread may
/// use it.
template <class T>
class watch_receiver {
  public:
    watch_receiver(const watch_receiver& other) : state_(other.state_), seen_(other.seen_) {
        if (!state_) return;
        std::lock_guard guard(state_->lock);
        ++state_->receivers;
        state_->add_ref();
    }
    watch_receiver(watch_receiver&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)), seen_(other.seen_) {}
    watch_receiver& operator=(watch_receiver other) noexcept {
        std::swap(state_, other.state_);
        std::swap(seen_, other.seen_);
        return *this;
    }
    ~watch_receiver() {
        if (!state_) return;
        {
            std::lock_guard guard(state_->lock);
            --state_->receivers;
        }
        state_->release();
    }

    /// Awaitable of changed().
    class changed_awaiter {
      public:
        explicit changed_awaiter(watch_receiver& owner) noexcept : owner_(owner) {}
        changed_awaiter(const changed_awaiter&) = delete;
        changed_awaiter& operator=(const changed_awaiter&) = delete;
        ~changed_awaiter() { owner_.state_->abandon(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            std::unique_lock guard(owner_.state_->lock);
            if (check()) return rtkit::detail::coop_continue(task_);
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with the queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (done_) return rtkit::detail::suspend_as_yield();
            detail::arm(node_, task_);
            owner_.state_->waiting.push_back(node_);
            owner_.state_->lock.unlock();
        }
        bool await_resume() {
            if (!done_) {
                detail::check_cancel(task_);  // the change stays unseen
                std::lock_guard guard(owner_.state_->lock);
                const bool woken =
                    node_.state.load(std::memory_order_relaxed) != detail::wait_state::queued;
                owner_.state_->stop_waiting(node_);
                // Woken by a send or by the last sender leaving.
                if (!woken || !check()) rtkit::detail::throw_cancelled();
            }
            return changed_;
        }

      private:
        /// Under lock: true when there is an answer (a version not seen yet,
        /// which it marks seen, or no sender left).
        bool check() noexcept {
            if (owner_.seen_ != owner_.state_->version) {
                owner_.seen_ = owner_.state_->version;
                changed_ = true;
            } else if (owner_.state_->senders.load(std::memory_order_acquire) == 0) {
                changed_ = false;
            } else {
                return false;
            }
            done_ = true;
            return true;
        }
        watch_receiver& owner_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        bool done_ = false;
        bool changed_ = false;
    };

    /// `if (co_await rx.changed())`: true once there is a value this receiver
    /// has not seen (at once if there is one already), and marks it seen;
    /// false when every sender is gone and it saw the last value. A
    /// cancellation point: cancelled, it marks nothing seen.
    [[nodiscard]] changed_awaiter changed() noexcept { return changed_awaiter(*this); }

    /// A copy of the current value; does not mark it seen.
    T value() const {
        std::lock_guard guard(state_->lock);
        return state_->value;
    }
    /// A copy of the current value, marked seen.
    T value_and_update() {
        std::lock_guard guard(state_->lock);
        seen_ = state_->version;
        return state_->value;
    }
    /// True when the current value is one this receiver has not seen.
    bool has_changed() const {
        std::lock_guard guard(state_->lock);
        return seen_ != state_->version;
    }
    /// True once every sender is gone (the value will not change again).
    bool is_closed() const noexcept { return state_->senders.load(std::memory_order_acquire) == 0; }

  private:
    friend class watch_sender<T>;
    friend struct detail::watch_factory;
    explicit watch_receiver(detail::watch_state<T>* state) : state_(state) {
        std::lock_guard guard(state_->lock);
        ++state_->receivers;
        seen_ = state_->version;
        state_->add_ref();
    }

    detail::watch_state<T>* state_;
    std::uint64_t seen_ = 0;  ///< the version seen last; guarded by the lock
};

/// A watch channel: its sender and a first receiver, as make_watch returns
/// them (`auto [tx, rx] = make_watch<T>(initial);`). It holds one value,
/// which each send replaces: a receiver sees the latest value and can wait
/// for the next change, but may miss the values in between (tokio's watch).
/// T must be copyable, and movable without throwing. Values are copied and
/// moved under the channel's lock, so T's copy and move must not use the same
/// channel (a replaced value is destroyed outside it). Thread-safe.
template <class T>
struct watch {
    watch_sender<T> tx;
    watch_receiver<T> rx;
};

namespace detail {
/// Builds the two ends around one new state (the ends' constructors are private).
struct watch_factory {
    template <class T>
    static watch<T> make(T initial) {
        static_assert(std::is_copy_constructible_v<T>, "a watch hands out copies of its value");
        static_assert(
            std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>,
            "a watch moves its value in and out, where a throw would lose it");
        auto* state = new watch_state<T>(std::move(initial));
        watch_sender<T> tx(state);
        return watch<T>{std::move(tx), watch_receiver<T>(state)};
    }
};
}  // namespace detail

/// A watch channel holding `initial`, which its first receiver has seen.
template <class T>
watch<T> make_watch(T initial) {
    return detail::watch_factory::make<T>(std::move(initial));
}

}  // namespace rtkit::sync
