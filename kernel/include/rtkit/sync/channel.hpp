#pragma once
// rtkit::sync::channel<T>: a bounded multi-producer, single-consumer channel.
#include <atomic>
#include <coroutine>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/permit_queue.hpp"
#include "rtkit/sync/ring_buffer.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

/// Thrown by channel_permit::send on an empty permit (one that reserve() gave
/// back because the receiver was gone, or one already used).
class channel_closed : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

/// What try_send did. On anything but `sent` the value was not moved from.
enum class try_send_result { sent, full, closed };

template <class T>
class channel_sender;
template <class T>
class channel_receiver;
template <class T>
class channel_permit;

namespace detail {

struct channel_factory;

/// The receiver's node while it waits on an empty channel: a sender hands its
/// value straight into it, so the woken receiver takes it without the lock.
template <class T>
struct recv_waiter : waiter {
    std::optional<T> value;
};

/// The state shared by a channel's ends, allocated once by make_channel.
///
/// Capacity is a FIFO permit queue of free slots: a sender takes a slot (at
/// once, or by waiting in line), then fills it; the receiver frees one per value
/// it takes and so hands it to the first waiting sender. Reserving a slot and
/// filling it are therefore two steps, which is what channel_permit exposes.
///
/// A value sent while the receiver waits skips the buffer: it goes into the
/// receiver's node and its slot is freed at once. If that receiver is then
/// cancelled before it resumes, the value goes back to the front of the buffer
/// (which has one spare place for it) without a slot, so nothing is lost and
/// the FIFO order holds.
template <class T>
class channel_state {
  public:
    explicit channel_state(std::size_t capacity)
        : slots(capacity), buffer(capacity + 1), capacity_(capacity) {}

    spin_lock lock;
    // Guarded by lock:
    permit_queue slots;                  ///< free slots; senders wait here, FIFO
    ring_buffer<T> buffer;               ///< sent values not yet received
    recv_waiter<T>* receiver = nullptr;  ///< the receiver, while it waits on an empty channel
    bool receiver_alive = true;          ///< false once the receiver was dropped
    bool front_has_no_slot = false;      ///< the front value was given back by a cancelled receiver
    /// Sender handles plus live permits (a permit can still send, so the
    /// channel is not finished while one lives). Changed without the lock; the
    /// one who drops it to zero takes the lock to wake the receiver.
    std::atomic<std::size_t> senders{1};

    std::size_t capacity() const noexcept { return capacity_; }

    /// Under lock: delivers a value whose slot the caller holds: to the waiting
    /// receiver (the slot is freed at once) or into the buffer.
    template <class U>
    void push_acquired(U&& value, pending_wakes& wakes) {
        try {
            if (!receiver) {
                buffer.push_back(std::forward<U>(value));
                return;
            }
            receiver->value.emplace(std::forward<U>(value));
        } catch (...) {
            slots.release(1, wakes);  // a throwing move keeps no slot
            throw;
        }
        settle(*std::exchange(receiver, nullptr), wait_state::granted, wakes);
        slots.release(1, wakes);  // the value skipped the buffer
    }
    /// Under lock: sends without a slot when the receiver waits and no sender
    /// is in line ahead (it would be overtaken otherwise). False when it cannot.
    template <class U>
    bool hand_to_receiver(U&& value, pending_wakes& wakes) {
        if (!receiver || slots.has_waiters()) return false;
        receiver->value.emplace(std::forward<U>(value));
        settle(*std::exchange(receiver, nullptr), wait_state::granted, wakes);
        return true;
    }
    /// Under lock: takes the next value into `out` (freeing its slot) and
    /// returns true, or returns true with `out` empty when the channel is
    /// finished, or false when the receiver must wait.
    bool take(std::optional<T>& out, pending_wakes& wakes) {
        if (!buffer.empty()) {
            out.emplace(buffer.pop_front());
            if (!std::exchange(front_has_no_slot, false)) slots.release(1, wakes);
            return true;
        }
        return senders.load(std::memory_order_acquire) == 0;
    }
    /// Under lock: a receiver cancelled after a value was handed to it puts it
    /// back in front. The buffer was empty when it began to wait and its spare
    /// place is free, so this fits.
    void give_back(T&& value) noexcept {
        buffer.push_front(std::move(value));
        front_has_no_slot = true;
    }

    void add_sender() noexcept { senders.fetch_add(1, std::memory_order_relaxed); }
    void drop_sender() noexcept {
        if (senders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        {
            pending_wakes wakes;
            std::lock_guard guard(lock);
            // It sees senders == 0 (and no value) and ends, the buffer being empty.
            if (receiver) settle(*std::exchange(receiver, nullptr), wait_state::granted, wakes);
        }
        release();
    }
    void drop_receiver() noexcept {
        {
            pending_wakes wakes;
            std::lock_guard guard(lock);
            receiver_alive = false;
            slots.close_all(wakes);
        }
        // Nobody touches the buffer once the receiver is gone, so the values
        // are destroyed without the lock (their destructors may use the channel).
        buffer.clear();
        release();
    }

    /// Under lock, for a sender that could not take a slot: queues `w` for one.
    void wait_for_slot(waiter& w, rtkit::detail::task_header* task) noexcept {
        w.amount = 1;
        arm(w, task);
        slots.enqueue(w);
    }
    /// A sender's wait ends without using what it was given (cancelled, or the
    /// awaiter destroyed): a queued waiter leaves the line, a granted slot goes
    /// to the next in line. Nothing is lost either way.
    void abandon_slot_wait(waiter& w) noexcept {
        if (w.state.load(std::memory_order_relaxed) == wait_state::idle) return;
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

    /// Two references: one for all senders together, one for the receiver.
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  private:
    std::size_t capacity_;
    std::atomic<int> refs_{2};
};

/// A waiter that was resumed although nothing settled it and no cancel is
/// pending cannot go back to sleep from await_resume; leave the line and unwind.
[[noreturn]] inline void resumed_while_queued() {
    rtkit::detail::throw_cancelled();
}

}  // namespace detail

/// The right to one slot of a channel, taken by channel_sender::reserve():
/// send() fills it without waiting; dropping the permit unsent frees the slot
/// for the next sender in line. An empty permit (false) means the receiver was
/// gone when the slot was asked for. Move-only. While a permit lives it counts
/// as a sender, so the receiver does not see the channel end under it.
template <class T>
class channel_permit {
  public:
    channel_permit() noexcept = default;
    channel_permit(channel_permit&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    channel_permit& operator=(channel_permit other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~channel_permit() {
        if (!state_) return;
        {
            sync::detail::pending_wakes wakes;
            std::lock_guard guard(state_->lock);
            state_->slots.release(1, wakes);
        }
        state_->drop_sender();
    }

    explicit operator bool() const noexcept { return state_ != nullptr; }

    /// Puts `value` into the reserved slot and wakes the receiver. Returns false
    /// (dropping the value) when the receiver went away after the reservation.
    /// Throws channel_closed on an empty permit. Uses up the permit.
    bool send(T value) {
        if (!state_) throw channel_closed("send through an empty channel permit");
        auto* state = std::exchange(state_, nullptr);
        struct drop_sender_on_exit {
            sync::detail::channel_state<T>* state;
            ~drop_sender_on_exit() { state->drop_sender(); }
        } drop{state};
        sync::detail::pending_wakes wakes;
        std::lock_guard guard(state->lock);
        if (!state->receiver_alive) return false;
        state->push_acquired(std::move(value), wakes);
        return true;
    }

  private:
    friend class channel_sender<T>;
    explicit channel_permit(sync::detail::channel_state<T>* state) noexcept : state_(state) {
        state_->add_sender();
    }
    sync::detail::channel_state<T>* state_ = nullptr;
};

/// The sending end of a channel. Copyable: each copy counts as a sender, and
/// the receiver sees the end of the channel (recv gives nullopt, after the
/// values still queued) once every sender and every permit is gone. Any thread
/// may use a sender; awaiting its operations needs an rtkit task. The sender
/// must outlive the co_await of its send() or reserve().
template <class T>
class channel_sender {
  public:
    channel_sender(const channel_sender& other) noexcept : state_(other.state_) {
        if (state_) state_->add_sender();
    }
    channel_sender(channel_sender&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    channel_sender& operator=(channel_sender other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~channel_sender() {
        if (state_) state_->drop_sender();
    }

    /// Awaitable of send(): waits in line for a free slot, then fills it.
    class send_awaiter {
      public:
        send_awaiter(sync::detail::channel_state<T>& state, T&& value)
            : state_(state), value_(std::move(value)) {}
        send_awaiter(const send_awaiter&) = delete;
        send_awaiter& operator=(const send_awaiter&) = delete;
        ~send_awaiter() { state_.abandon_slot_wait(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (sync::detail::cancel_pending(task_)) return true;
            sync::detail::pending_wakes wakes;
            std::unique_lock guard(state_.lock);
            if (!state_.receiver_alive) {
                result_ = result::closed;
                return rtkit::detail::coop_continue(task_);
            }
            if (state_.hand_to_receiver(std::move(value_), wakes)) {
                result_ = result::sent;
                return rtkit::detail::coop_continue(task_);
            }
            if (state_.slots.try_acquire(1)) {
                state_.push_acquired(std::move(value_), wakes);
                result_ = result::sent;
                return rtkit::detail::coop_continue(task_);
            }
            sync::detail::require_task(task_);  // throws (and unlocks) outside a task
            // Keep the lock into await_suspend: checking and queueing are then
            // one critical section, and the fast path takes the lock only once.
            guard.release();
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (result_ != result::waiting) return rtkit::detail::suspend_as_yield();
            state_.wait_for_slot(node_, task_);
            state_.lock.unlock();
        }
        /// True when sent, false when the receiver is gone (the value is dropped).
        bool await_resume() {
            if (result_ != result::waiting) return result_ == result::sent;
            sync::detail::check_cancel(task_);  // the destructor frees a slot granted meanwhile
            sync::detail::pending_wakes wakes;
            std::lock_guard guard(state_.lock);
            sync::detail::wait_state s = node_.state.load(std::memory_order_relaxed);
            if (s == sync::detail::wait_state::queued) {
                state_.slots.remove(node_, wakes);
                sync::detail::resumed_while_queued();
            }
            node_.state.store(sync::detail::wait_state::idle, std::memory_order_relaxed);
            if (s == sync::detail::wait_state::closed) return false;
            if (!state_.receiver_alive) return false;  // granted, then the receiver left
            state_.push_acquired(std::move(value_), wakes);
            return true;
        }

      private:
        enum class result : std::uint8_t { waiting, sent, closed };
        sync::detail::channel_state<T>& state_;
        T value_;
        sync::detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        result result_ = result::waiting;
    };

    /// Awaitable of reserve(): waits in line for a free slot and yields it as a permit.
    class reserve_awaiter {
      public:
        explicit reserve_awaiter(sync::detail::channel_state<T>& state) noexcept : state_(state) {}
        reserve_awaiter(const reserve_awaiter&) = delete;
        reserve_awaiter& operator=(const reserve_awaiter&) = delete;
        ~reserve_awaiter() { state_.abandon_slot_wait(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (sync::detail::cancel_pending(task_)) return true;
            std::unique_lock guard(state_.lock);
            if (!state_.receiver_alive) {
                result_ = result::closed;
                return rtkit::detail::coop_continue(task_);
            }
            if (state_.slots.try_acquire(1)) {
                result_ = result::reserved;
                return rtkit::detail::coop_continue(task_);
            }
            sync::detail::require_task(task_);
            guard.release();  // into await_suspend, as in send_awaiter
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (result_ != result::waiting) return rtkit::detail::suspend_as_yield();
            state_.wait_for_slot(node_, task_);
            state_.lock.unlock();
        }
        /// The permit; empty when the receiver is gone.
        channel_permit<T> await_resume() {
            if (result_ == result::closed) return channel_permit<T>();
            if (result_ == result::waiting) {
                sync::detail::check_cancel(task_);  // the destructor frees a slot granted meanwhile
                sync::detail::pending_wakes wakes;
                std::lock_guard guard(state_.lock);
                sync::detail::wait_state s = node_.state.load(std::memory_order_relaxed);
                if (s == sync::detail::wait_state::queued) {
                    state_.slots.remove(node_, wakes);
                    sync::detail::resumed_while_queued();
                }
                node_.state.store(sync::detail::wait_state::idle, std::memory_order_relaxed);
                if (s == sync::detail::wait_state::closed) return channel_permit<T>();
            }
            return channel_permit<T>(&state_);
        }

      private:
        enum class result : std::uint8_t { waiting, reserved, closed };
        sync::detail::channel_state<T>& state_;
        sync::detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        result result_ = result::waiting;
    };

    /// `co_await tx.send(v)`: waits (FIFO among senders) while the channel is
    /// full, then queues `v`. Returns true when sent; false when the receiver is
    /// gone, in which case the value is dropped (use try_send or reserve to keep
    /// it). A cancellation point: cancelled while waiting, nothing was sent and
    /// no slot is held.
    [[nodiscard]] send_awaiter send(T value) { return send_awaiter(*state_, std::move(value)); }

    /// `auto permit = co_await tx.reserve()`: waits in line for a slot like
    /// send(), but hands it over as a channel_permit to fill later. The permit is
    /// empty when the receiver is gone. A cancellation point: cancelled while
    /// waiting, it holds no slot (one granted meanwhile goes to the next sender).
    [[nodiscard]] reserve_awaiter reserve() { return reserve_awaiter(*state_); }

    /// Sends without waiting; `value` is moved from only when the result is `sent`.
    try_send_result try_send(T&& value) { return try_send_impl(std::move(value)); }
    try_send_result try_send(const T& value) { return try_send_impl(value); }

    /// True once the receiver is gone (every send fails from then on).
    bool is_closed() const {
        std::lock_guard guard(state_->lock);
        return !state_->receiver_alive;
    }

  private:
    friend struct sync::detail::channel_factory;
    explicit channel_sender(sync::detail::channel_state<T>* state) noexcept : state_(state) {}

    template <class U>
    try_send_result try_send_impl(U&& value) {
        sync::detail::pending_wakes wakes;
        std::lock_guard guard(state_->lock);
        if (!state_->receiver_alive) return try_send_result::closed;
        if (state_->hand_to_receiver(std::forward<U>(value), wakes)) return try_send_result::sent;
        if (!state_->slots.try_acquire(1)) return try_send_result::full;
        state_->push_acquired(std::forward<U>(value), wakes);
        return try_send_result::sent;
    }

    sync::detail::channel_state<T>* state_;
};

/// The receiving end of a channel: one consumer, so move-only. Dropping it
/// closes the channel: waiting and later sends fail (send gives false,
/// try_send `closed`, reserve an empty permit) and queued values are destroyed.
/// The receiver must outlive the co_await of its recv().
template <class T>
class channel_receiver {
  public:
    channel_receiver(channel_receiver&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    channel_receiver& operator=(channel_receiver other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~channel_receiver() {
        if (state_) state_->drop_receiver();
    }

    /// Awaitable of recv().
    class recv_awaiter {
      public:
        explicit recv_awaiter(sync::detail::channel_state<T>& state) noexcept : state_(state) {}
        recv_awaiter(const recv_awaiter&) = delete;
        recv_awaiter& operator=(const recv_awaiter&) = delete;
        ~recv_awaiter() {
            // Still queued, or handed a value it will not return (cancelled):
            // leave the line, and put the value back for the next recv.
            if (node_.state.load(std::memory_order_acquire) == sync::detail::wait_state::idle)
                return;
            std::lock_guard guard(state_.lock);
            if (state_.receiver == &node_) state_.receiver = nullptr;
            if (node_.value) state_.give_back(std::move(*node_.value));
        }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (sync::detail::cancel_pending(task_)) return true;
            sync::detail::pending_wakes wakes;
            std::unique_lock guard(state_.lock);
            if (state_.take(node_.value, wakes)) {
                done_ = true;
                return rtkit::detail::coop_continue(task_);
            }
            sync::detail::require_task(task_);
            guard.release();  // into await_suspend, as in send_awaiter
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (done_) return rtkit::detail::suspend_as_yield();
            sync::detail::arm(node_, task_);
            node_.state.store(sync::detail::wait_state::queued, std::memory_order_relaxed);
            state_.receiver = &node_;
            state_.lock.unlock();
        }
        std::optional<T> await_resume() {
            if (!done_) {
                sync::detail::check_cancel(task_);  // the destructor gives back a handed value
                if (node_.state.load(std::memory_order_acquire) == sync::detail::wait_state::queued)
                    sync::detail::resumed_while_queued();  // the destructor leaves the line
                if (!node_.value) {
                    // Woken because the last sender left: the channel is finished.
                    sync::detail::pending_wakes wakes;
                    std::lock_guard guard(state_.lock);
                    state_.take(node_.value, wakes);
                }
                node_.state.store(sync::detail::wait_state::idle, std::memory_order_relaxed);
            }
            std::optional<T> out(std::move(node_.value));
            node_.value.reset();
            return out;
        }

      private:
        sync::detail::channel_state<T>& state_;
        sync::detail::recv_waiter<T> node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        bool done_ = false;
    };

    /// `co_await rx.recv()`: the next value, waiting while the channel is empty;
    /// nullopt once every sender (and permit) is gone and the queue is drained.
    /// A cancellation point: cancelled, it takes nothing (a value sent meanwhile
    /// stays for the next recv).
    [[nodiscard]] recv_awaiter recv() { return recv_awaiter(*state_); }

    /// The next value if one is queued, without waiting. nullopt when empty or
    /// finished; is_finished() tells which.
    std::optional<T> try_recv() {
        std::optional<T> value;
        sync::detail::pending_wakes wakes;
        std::lock_guard guard(state_->lock);
        state_->take(value, wakes);
        return value;
    }

    /// True once every sender is gone and nothing is left to receive.
    bool is_finished() const {
        std::lock_guard guard(state_->lock);
        return state_->buffer.empty() && state_->senders.load(std::memory_order_acquire) == 0;
    }
    /// Values queued now.
    std::size_t size() const {
        std::lock_guard guard(state_->lock);
        return state_->buffer.size();
    }
    std::size_t capacity() const noexcept { return state_->capacity(); }

  private:
    friend struct sync::detail::channel_factory;
    explicit channel_receiver(sync::detail::channel_state<T>* state) noexcept : state_(state) {}
    sync::detail::channel_state<T>* state_;
};

/// A bounded multi-producer single-consumer channel: its two ends, as
/// make_channel returns them (`auto [tx, rx] = make_channel<T>(capacity);`).
///
/// Senders wait in FIFO order while it is full; every wait is a cancellation
/// point that leaves the channel as if the waiter had never come. Both ends
/// are thread-safe: tasks on different runtimes, and plain threads through
/// try_send/try_recv, may share one channel.
template <class T>
struct channel {
    channel_sender<T> tx;
    channel_receiver<T> rx;
};

namespace detail {
/// Builds the two ends around one new state (the ends' constructors are private).
struct channel_factory {
    template <class T>
    static channel<T> make(std::size_t capacity) {
        if (capacity == 0) throw std::invalid_argument("make_channel: capacity must be at least 1");
        auto* state = new sync::detail::channel_state<T>(capacity);
        return channel<T>{channel_sender<T>(state), channel_receiver<T>(state)};
    }
};
}  // namespace detail

/// A channel holding at most `capacity` (>= 1) values; throws
/// std::invalid_argument for zero.
template <class T>
channel<T> make_channel(std::size_t capacity) {
    return detail::channel_factory::make<T>(capacity);
}

}  // namespace rtkit::sync
