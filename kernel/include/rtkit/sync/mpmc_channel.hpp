#pragma once
// rtkit::sync::mpmc_channel<T>: a bounded channel with any number of senders
// and receivers; each value goes to one receiver.
#include <atomic>
#include <coroutine>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/channel.hpp"
#include "rtkit/sync/permit_queue.hpp"
#include "rtkit/sync/ring_buffer.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

template <class T>
class mpmc_sender;
template <class T>
class mpmc_receiver;

namespace detail {

struct mpmc_factory;

/// The state an mpmc channel's ends share.
///
/// Every value holds one of the `capacity` slots from its send until a
/// receiver takes it: senders wait in FIFO order for a free slot. A value
/// sent while receivers wait goes straight into the node of the first of
/// them (it is "in flight" until that receiver resumes and takes it); other
/// values wait in the buffer. A receiver cancelled with a value in flight
/// passes it to the next waiting receiver or puts it back in front of the
/// buffer; its slot never left it, so it fits. The channel is finished once
/// every sender is gone and no value is buffered or in flight: only then are
/// waiting receivers told so.
template <class T>
class mpmc_state {
  public:
    explicit mpmc_state(std::size_t capacity)
        : slots(capacity), buffer(capacity), capacity_(capacity) {}

    spin_lock lock;
    // Guarded by lock:
    permit_queue slots;         ///< free slots; senders wait here, FIFO
    ring_buffer<T> buffer;      ///< values sent and not handed to a receiver
    waiter_queue receiving;     ///< receivers waiting for a value (recv_waiter<T> nodes)
    std::size_t in_flight = 0;  ///< values in the nodes of receivers yet to resume
    std::size_t receivers = 1;  ///< receiver handles
    /// Sender handles, changed without the lock; whoever drops the last one
    /// takes the lock to end the waits of the receivers.
    std::atomic<std::size_t> senders{1};

    std::size_t capacity() const noexcept { return capacity_; }

    /// Under lock: delivers a value whose slot the caller holds.
    template <class U>
    void deliver(U&& value, pending_wakes& wakes) {
        try {
            if (waiter* w = receiving.front()) {
                static_cast<recv_waiter<T>*>(w)->value.emplace(std::forward<U>(value));
                receiving.remove(*w);
                ++in_flight;
                settle(*w, wait_state::granted, wakes);
            } else {
                buffer.push_back(std::forward<U>(value));
            }
        } catch (...) {
            slots.release(1, wakes);  // a throwing move keeps no slot
            throw;
        }
    }
    /// Under lock: the next buffered value into `out` (true), or true with
    /// `out` empty when the channel is finished, or false when the receiver
    /// must wait.
    bool take(std::optional<T>& out, pending_wakes& wakes) {
        if (!buffer.empty()) {
            out.emplace(buffer.pop_front());
            slots.release(1, wakes);
            return true;
        }
        return finished();
    }
    /// Under lock: a receiver took the value handed to it.
    void took_in_flight(pending_wakes& wakes) noexcept {
        --in_flight;
        slots.release(1, wakes);
        if (finished()) end_receiver_waits(wakes);
    }
    /// Under lock: a receiver cancelled with a value in flight gives it back.
    void give_back(T&& value, pending_wakes& wakes) noexcept {
        --in_flight;
        if (waiter* w = receiving.front()) {
            static_cast<recv_waiter<T>*>(w)->value.emplace(std::move(value));
            receiving.remove(*w);
            ++in_flight;
            settle(*w, wait_state::granted, wakes);
        } else {
            buffer.push_front(std::move(value));
        }
    }
    bool finished() const noexcept {
        return buffer.empty() && in_flight == 0 && senders.load(std::memory_order_acquire) == 0;
    }
    /// Under lock: wakes every waiting receiver, with no value (finished).
    void end_receiver_waits(pending_wakes& wakes) noexcept {
        while (waiter* w = receiving.pop_front())
            settle(*w, wait_state::granted, wakes);
    }

    void drop_sender() noexcept {
        if (senders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        {
            pending_wakes wakes;
            std::lock_guard guard(lock);
            if (finished()) end_receiver_waits(wakes);
        }
        release();
    }
    void drop_receiver() noexcept {
        {
            pending_wakes wakes;
            std::lock_guard guard(lock);
            if (--receivers > 0) return;
            slots.close_all(wakes);
        }
        // Nobody touches the buffer once the last receiver is gone, so the
        // values are destroyed without the lock (their destructors may use
        // the channel).
        buffer.clear();
        release();
    }

    /// A sender's wait for a slot ends unused: a queued waiter leaves the
    /// line, a granted slot goes to the next in line.
    void abandon_slot_wait(waiter& w) noexcept {
        if (w.state.load(std::memory_order_acquire) == wait_state::idle) return;
        pending_wakes wakes;
        std::lock_guard guard(lock);
        switch (w.state.load(std::memory_order_relaxed)) {
            case wait_state::queued:
                slots.remove(w, wakes);
                break;
            case wait_state::granted:
                slots.release(1, wakes);
                break;
            default:
                break;
        }
        w.state.store(wait_state::idle, std::memory_order_relaxed);
    }
    /// A receiver's wait ends unused: it leaves the line, or passes on the
    /// value handed to it.
    void abandon_recv_wait(recv_waiter<T>& w) noexcept {
        if (w.state.load(std::memory_order_acquire) == wait_state::idle) return;
        pending_wakes wakes;
        std::lock_guard guard(lock);
        if (w.state.load(std::memory_order_relaxed) == wait_state::queued) receiving.remove(w);
        if (w.value) {
            give_back(std::move(*w.value), wakes);
            w.value.reset();
        }
        w.state.store(wait_state::idle, std::memory_order_relaxed);
    }

    /// Two references: one for all senders together, one for all receivers.
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  private:
    std::size_t capacity_;
    std::atomic<int> refs_{2};
};

}  // namespace detail

/// A sending end of an mpmc channel. Copyable: the receivers see the end
/// once every copy is gone and every value was taken. Any thread may use a
/// sender; awaiting its send needs an rtkit task, and the sender must
/// outlive the co_await.
template <class T>
class mpmc_sender {
  public:
    mpmc_sender(const mpmc_sender& other) noexcept : state_(other.state_) {
        if (state_) state_->senders.fetch_add(1, std::memory_order_relaxed);
    }
    mpmc_sender(mpmc_sender&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    mpmc_sender& operator=(mpmc_sender other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~mpmc_sender() {
        if (state_) state_->drop_sender();
    }

    /// Awaitable of send(): waits in line for a free slot, then delivers.
    class send_awaiter {
      public:
        send_awaiter(detail::mpmc_state<T>& state, T&& value)
            : state_(state), value_(std::move(value)) {}
        send_awaiter(const send_awaiter&) = delete;
        send_awaiter& operator=(const send_awaiter&) = delete;
        ~send_awaiter() { state_.abandon_slot_wait(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            detail::pending_wakes wakes;
            std::unique_lock guard(state_.lock);
            if (state_.receivers == 0) {
                result_ = result::closed;
                return rtkit::detail::coop_continue(task_);
            }
            if (state_.slots.try_acquire(1)) {
                state_.deliver(std::move(value_), wakes);
                result_ = result::sent;
                return rtkit::detail::coop_continue(task_);
            }
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with the queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (result_ != result::waiting) return rtkit::detail::suspend_as_yield();
            node_.amount = 1;
            detail::arm(node_, task_);
            state_.slots.enqueue(node_);
            state_.lock.unlock();
        }
        /// True when sent, false when every receiver is gone (the value is dropped).
        bool await_resume() {
            if (result_ != result::waiting) return result_ == result::sent;
            detail::check_cancel(task_);  // the destructor frees a slot granted meanwhile
            detail::pending_wakes wakes;
            std::lock_guard guard(state_.lock);
            const detail::wait_state s = node_.state.load(std::memory_order_relaxed);
            if (s == detail::wait_state::queued) {
                state_.slots.remove(node_, wakes);
                rtkit::detail::throw_cancelled();  // resumed without a slot: unwind
            }
            node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
            if (s == detail::wait_state::closed) return false;
            if (state_.receivers == 0) {  // granted, then the receivers left
                state_.slots.release(1, wakes);
                return false;
            }
            state_.deliver(std::move(value_), wakes);
            return true;
        }

      private:
        enum class result : std::uint8_t { waiting, sent, closed };
        detail::mpmc_state<T>& state_;
        T value_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        result result_ = result::waiting;
    };

    /// `co_await tx.send(v)`: waits (FIFO among senders) while the channel is
    /// full, then delivers `v` to one receiver. True when sent; false when
    /// every receiver is gone (the value is dropped). A cancellation point:
    /// cancelled while waiting, nothing was sent and no slot is held.
    [[nodiscard]] send_awaiter send(T value) { return send_awaiter(*state_, std::move(value)); }

    /// Sends without waiting; `value` is moved from only when the result is `sent`.
    try_send_result try_send(T&& value) { return try_send_impl(std::move(value)); }
    try_send_result try_send(const T& value) { return try_send_impl(value); }

    /// True once every receiver is gone (every send fails from then on).
    bool is_closed() const {
        std::lock_guard guard(state_->lock);
        return state_->receivers == 0;
    }

  private:
    friend struct detail::mpmc_factory;
    explicit mpmc_sender(detail::mpmc_state<T>* state) noexcept : state_(state) {}

    template <class U>
    try_send_result try_send_impl(U&& value) {
        detail::pending_wakes wakes;
        std::lock_guard guard(state_->lock);
        if (state_->receivers == 0) return try_send_result::closed;
        if (!state_->slots.try_acquire(1)) return try_send_result::full;
        state_->deliver(std::forward<U>(value), wakes);
        return try_send_result::sent;
    }

    detail::mpmc_state<T>* state_;
};

/// A receiving end of an mpmc channel. Copyable: every copy takes values
/// from the same queue, each value going to one of them, and waiting
/// receivers are served in the order they came. When the last copy is gone,
/// sends fail and queued values are destroyed. A receiver must outlive the
/// co_await of its recv(). Any thread may use it.
template <class T>
class mpmc_receiver {
  public:
    mpmc_receiver(const mpmc_receiver& other) noexcept : state_(other.state_) {
        if (!state_) return;
        std::lock_guard guard(state_->lock);
        ++state_->receivers;
    }
    mpmc_receiver(mpmc_receiver&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    mpmc_receiver& operator=(mpmc_receiver other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~mpmc_receiver() {
        if (state_) state_->drop_receiver();
    }

    /// Awaitable of recv().
    class recv_awaiter {
      public:
        explicit recv_awaiter(detail::mpmc_state<T>& state) noexcept : state_(state) {}
        recv_awaiter(const recv_awaiter&) = delete;
        recv_awaiter& operator=(const recv_awaiter&) = delete;
        ~recv_awaiter() { state_.abandon_recv_wait(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            detail::pending_wakes wakes;
            std::unique_lock guard(state_.lock);
            if (state_.take(value_, wakes)) {
                done_ = true;
                return rtkit::detail::coop_continue(task_);
            }
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with the queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (done_) return rtkit::detail::suspend_as_yield();
            detail::arm(node_, task_);
            state_.receiving.push_back(node_);
            state_.lock.unlock();
        }
        std::optional<T> await_resume() {
            if (!done_) {
                detail::check_cancel(task_);  // the destructor passes on a handed value
                detail::pending_wakes wakes;
                std::lock_guard guard(state_.lock);
                if (node_.state.load(std::memory_order_relaxed) == detail::wait_state::queued) {
                    state_.receiving.remove(node_);
                    node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
                    rtkit::detail::throw_cancelled();  // resumed without a value: unwind
                }
                node_.state.store(detail::wait_state::idle, std::memory_order_relaxed);
                if (node_.value) {
                    value_ = std::move(node_.value);
                    node_.value.reset();
                    state_.took_in_flight(wakes);
                }
                // Otherwise woken because the channel is finished.
            }
            return std::move(value_);
        }

      private:
        detail::mpmc_state<T>& state_;
        detail::recv_waiter<T> node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        std::optional<T> value_;
        bool done_ = false;
    };

    /// `co_await rx.recv()`: the next value, waiting while the channel is
    /// empty; nullopt once every sender is gone and every value was taken. A
    /// cancellation point: cancelled, it takes nothing (a value handed to it
    /// meanwhile goes to the next receiver in line, or back to the front).
    [[nodiscard]] recv_awaiter recv() { return recv_awaiter(*state_); }

    /// The next buffered value, without waiting; nullopt when there is none.
    std::optional<T> try_recv() {
        std::optional<T> value;
        detail::pending_wakes wakes;
        std::lock_guard guard(state_->lock);
        state_->take(value, wakes);
        return value;
    }

    /// True once every sender is gone and nothing is left to receive.
    bool is_finished() const {
        std::lock_guard guard(state_->lock);
        return state_->finished();
    }
    /// Values buffered now (not counting those handed to waiting receivers).
    std::size_t size() const {
        std::lock_guard guard(state_->lock);
        return state_->buffer.size();
    }
    std::size_t capacity() const noexcept { return state_->capacity(); }

  private:
    friend struct detail::mpmc_factory;
    explicit mpmc_receiver(detail::mpmc_state<T>* state) noexcept : state_(state) {}
    detail::mpmc_state<T>* state_;
};

/// A bounded multi-producer multi-consumer channel: its two ends, as
/// make_mpmc_channel returns them (`auto [tx, rx] = make_mpmc_channel<T>(n);`),
/// both copyable. Each value goes to exactly one receiver: a pool of worker
/// tasks can share one queue of jobs. Senders wait in FIFO order while it
/// is full, receivers in FIFO order while it is empty; every wait is a
/// cancellation point that loses nothing. T is moved under the channel's
/// lock, so its move must not use the same channel. Thread-safe.
template <class T>
struct mpmc_channel {
    mpmc_sender<T> tx;
    mpmc_receiver<T> rx;
};

namespace detail {
/// Builds the two ends around one new state (the ends' constructors are private).
struct mpmc_factory {
    template <class T>
    static mpmc_channel<T> make(std::size_t capacity) {
        if (capacity == 0)
            throw std::invalid_argument("make_mpmc_channel: capacity must be at least 1");
        auto* state = new mpmc_state<T>(capacity);
        return mpmc_channel<T>{mpmc_sender<T>(state), mpmc_receiver<T>(state)};
    }
};
}  // namespace detail

/// An mpmc channel holding at most `capacity` (>= 1) values; throws
/// std::invalid_argument for zero.
template <class T>
mpmc_channel<T> make_mpmc_channel(std::size_t capacity) {
    return detail::mpmc_factory::make<T>(capacity);
}

}  // namespace rtkit::sync
