#pragma once
// rtkit::sync::oneshot<T>: one value, sent once, from one sender to one receiver.
#include <atomic>
#include <coroutine>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

template <class T>
class oneshot_sender;
template <class T>
class oneshot_receiver;

namespace detail {

struct oneshot_factory;

/// The state shared by the two ends of a oneshot; each end holds one reference.
template <class T>
struct oneshot_state {
    spin_lock lock;
    // Guarded by lock:
    std::optional<T> value;
    waiter* receiver = nullptr;  ///< the receiver, while it waits
    bool sender_alive = true;    ///< false once sent or dropped
    bool receiver_alive = true;

    /// Under lock: the sender is done (sent or dropped); wake the receiver.
    void finish_sender(pending_wakes& wakes) noexcept {
        sender_alive = false;
        if (waiter* r = std::exchange(receiver, nullptr)) settle(*r, wait_state::granted, wakes);
    }
    void release() noexcept {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
    std::atomic<int> refs{2};
};

}  // namespace detail

/// The sending end of a oneshot: send() once. Dropping it unsent makes the
/// receiver get nullopt. Move-only; any thread may use it (it never waits).
template <class T>
class oneshot_sender {
  public:
    oneshot_sender(oneshot_sender&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    oneshot_sender& operator=(oneshot_sender other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~oneshot_sender() {
        if (!state_) return;
        {
            detail::pending_wakes wakes;
            std::lock_guard guard(state_->lock);
            state_->finish_sender(wakes);
        }
        state_->release();
    }

    /// Delivers `value` and wakes the receiver; uses up the sender. Returns false
    /// (and leaves `value` unmoved) when the receiver is already gone. Throws
    /// std::logic_error when the sender was already used.
    bool send(T&& value) { return send_impl(std::move(value)); }
    bool send(const T& value) { return send_impl(value); }

    /// True once the receiver is gone (a send would fail).
    bool is_closed() const {
        std::lock_guard guard(state_->lock);
        return !state_->receiver_alive;
    }

  private:
    friend struct detail::oneshot_factory;
    explicit oneshot_sender(detail::oneshot_state<T>* state) noexcept : state_(state) {}

    template <class U>
    bool send_impl(U&& value) {
        if (!state_) throw std::logic_error("oneshot_sender::send: the value was already sent");
        {
            detail::pending_wakes wakes;
            std::lock_guard guard(state_->lock);
            if (!state_->receiver_alive) return false;
            state_->value.emplace(std::forward<U>(value));
            state_->finish_sender(wakes);
        }
        std::exchange(state_, nullptr)->release();
        return true;
    }

    detail::oneshot_state<T>* state_;
};

/// The receiving end of a oneshot: `co_await rx` gives the value, or nullopt
/// when the sender was dropped without sending (or the value was already
/// taken). Move-only; must outlive the co_await.
template <class T>
class oneshot_receiver {
  public:
    oneshot_receiver(oneshot_receiver&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    oneshot_receiver& operator=(oneshot_receiver other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~oneshot_receiver() {
        if (!state_) return;
        std::optional<T> doomed;  // destroyed after the unlock
        {
            std::lock_guard guard(state_->lock);
            state_->receiver_alive = false;
            doomed.swap(state_->value);
        }
        state_->release();
    }

    /// Awaitable of `co_await rx`.
    class awaiter {
      public:
        explicit awaiter(detail::oneshot_state<T>& state) noexcept : state_(state) {}
        awaiter(const awaiter&) = delete;
        awaiter& operator=(const awaiter&) = delete;
        ~awaiter() {
            // Only a queued node is linked; a settled one was unlinked by its settler.
            if (node_.state.load(std::memory_order_acquire) != detail::wait_state::queued) return;
            std::lock_guard guard(state_.lock);
            if (state_.receiver == &node_) state_.receiver = nullptr;
        }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            std::unique_lock guard(state_.lock);
            if (take()) return true;
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with await_suspend's queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            detail::arm(node_, task_);
            node_.state.store(detail::wait_state::queued, std::memory_order_relaxed);
            state_.receiver = &node_;
            state_.lock.unlock();
        }
        std::optional<T> await_resume() {
            if (!done_) {
                detail::check_cancel(task_);  // the value, if sent meanwhile, stays
                std::lock_guard guard(state_.lock);
                if (node_.state.load(std::memory_order_relaxed) == detail::wait_state::queued) {
                    state_.receiver = nullptr;
                    node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
                    rtkit::detail::throw_cancelled();  // resumed without news: unwind
                }
                node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
                take();
            }
            return std::move(value_);
        }

      private:
        /// Under lock: takes the value, or finds the sender gone.
        bool take() {
            if (state_.value) {
                value_.emplace(std::move(*state_.value));
                state_.value.reset();
            }
            done_ = value_.has_value() || !state_.sender_alive;
            return done_;
        }
        detail::oneshot_state<T>& state_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        std::optional<T> value_;
        bool done_ = false;
    };

    /// A cancellation point: cancelled while waiting, the value (if it arrives)
    /// stays for a later await or try_recv.
    awaiter operator co_await() noexcept { return awaiter(*state_); }

    /// The value if it was sent and not yet taken; never waits.
    std::optional<T> try_recv() {
        std::optional<T> out;
        std::lock_guard guard(state_->lock);
        out.swap(state_->value);
        return out;
    }

  private:
    friend struct detail::oneshot_factory;
    explicit oneshot_receiver(detail::oneshot_state<T>* state) noexcept : state_(state) {}
    detail::oneshot_state<T>* state_;
};

/// A one-value channel: its two ends, as make_oneshot returns them
/// (`auto [tx, rx] = make_oneshot<T>();`). Thread-safe.
template <class T>
struct oneshot {
    oneshot_sender<T> tx;
    oneshot_receiver<T> rx;
};

namespace detail {
/// Builds the two ends around one new state (the ends' constructors are private).
struct oneshot_factory {
    template <class T>
    static oneshot<T> make() {
        auto* state = new oneshot_state<T>();
        return oneshot<T>{oneshot_sender<T>(state), oneshot_receiver<T>(state)};
    }
};
}  // namespace detail

template <class T>
oneshot<T> make_oneshot() {
    return detail::oneshot_factory::make<T>();
}

}  // namespace rtkit::sync
