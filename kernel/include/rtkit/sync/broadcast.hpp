#pragma once
// rtkit::sync::broadcast<T>: every receiver sees every value, in order; a
// receiver that falls too far behind is told how many values it missed.
#include <algorithm>
#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync {

template <class T>
class broadcast_sender;
template <class T>
class broadcast_receiver;

/// What a broadcast receiver got: a value, word that it lagged (values it
/// had not taken were overwritten: missed() says how many), the end (every
/// sender is gone and it took every value), or, from try_recv only, nothing
/// yet. Converts to true only when it holds a value.
template <class T>
class broadcast_result {
  public:
    enum class status : std::uint8_t { value, lagged, closed, empty };

    static broadcast_result of(T value) { return broadcast_result(std::move(value)); }
    static broadcast_result lagged_by(std::uint64_t missed) noexcept {
        return broadcast_result(status::lagged, missed);
    }
    static broadcast_result closed() noexcept { return broadcast_result(status::closed, 0); }
    static broadcast_result empty() noexcept { return broadcast_result(status::empty, 0); }

    status state() const noexcept { return status_; }
    explicit operator bool() const noexcept { return status_ == status::value; }
    bool is_lagged() const noexcept { return status_ == status::lagged; }
    bool is_closed() const noexcept { return status_ == status::closed; }
    bool is_empty() const noexcept { return status_ == status::empty; }
    /// How many values the receiver missed (lagged only; 0 otherwise).
    std::uint64_t missed() const noexcept { return missed_; }
    /// The value; throws std::logic_error when there is none.
    T& value() & {
        check_value();
        return *value_;
    }
    const T& value() const& {
        check_value();
        return *value_;
    }
    T&& value() && {
        check_value();
        return std::move(*value_);
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

  private:
    void check_value() const {
        if (!value_) throw std::logic_error("broadcast_result holds no value");
    }
    explicit broadcast_result(T value) : value_(std::move(value)), status_(status::value) {}
    broadcast_result(status s, std::uint64_t missed) noexcept : status_(s), missed_(missed) {}
    std::optional<T> value_;
    status status_;
    std::uint64_t missed_ = 0;
};

namespace detail {

struct broadcast_factory;

/// The state a broadcast's ends share. Values sit in a ring of `capacity`
/// slots by position (the n-th value sent has position n). Each receiver
/// keeps the position it takes next; a slot counts the receivers that have
/// yet to take its value, and the last of them moves it out. A send into a
/// slot that some receiver has not taken yet overwrites it: those receivers
/// learn it from their next recv, as lagged by the number of positions they
/// fell behind the oldest value still held.
template <class T>
class broadcast_state {
  public:
    explicit broadcast_state(std::size_t capacity)
        : slots_(std::make_unique<slot[]>(capacity)), capacity_(capacity) {}

    spin_lock lock;

    std::size_t capacity() const noexcept { return capacity_; }

    /// Under lock: `value` becomes the next position. Returns how many
    /// receivers will see it (0: none, and `value` is untouched). A value it
    /// overwrites is moved into `overwritten`, to be destroyed after the
    /// unlock.
    template <class U>
    std::size_t push(U&& value, std::optional<T>& overwritten, pending_wakes& wakes) {
        if (receivers_ == 0) return 0;
        T fresh(std::forward<U>(value));  // a copy that throws changes nothing
        slot& s = slots_[tail_ % capacity_];
        if (s.value) {
            overwritten.emplace(std::move(*s.value));
            s.value.reset();
        }
        s.value.emplace(std::move(fresh));
        s.unseen = receivers_;
        ++tail_;
        while (waiter* w = waiting_.pop_front())
            settle(*w, wait_state::granted, wakes);
        return receivers_;
    }

    /// Under lock: what a receiver at `next` gets now, advancing `next` past
    /// it; nullopt when it must wait. A copy that throws changes nothing.
    std::optional<broadcast_result<T>> take(std::uint64_t& next) {
        if (next == tail_) {
            if (senders.load(std::memory_order_acquire) == 0) return broadcast_result<T>::closed();
            return std::nullopt;
        }
        if (next < oldest()) {
            const std::uint64_t missed = oldest() - next;
            next = oldest();
            return broadcast_result<T>::lagged_by(missed);
        }
        slot& s = slots_[next % capacity_];
        if (s.unseen == 1) {
            broadcast_result<T> last = broadcast_result<T>::of(std::move(*s.value));
            s.value.reset();
            s.unseen = 0;
            ++next;
            return last;
        }
        broadcast_result<T> copy = broadcast_result<T>::of(*s.value);
        --s.unseen;
        ++next;
        return copy;
    }

    /// Under lock: values a receiver at `next` can still take.
    std::size_t pending(std::uint64_t next) const noexcept {
        return static_cast<std::size_t>(tail_ - std::max(next, oldest()));
    }

    /// Under lock: a new receiver, at the next value to be sent.
    std::uint64_t subscribe() noexcept {
        ++receivers_;
        return tail_;
    }
    /// Under lock: a receiver copied from one at `next` (it has the same
    /// values yet to take).
    void copy_receiver(std::uint64_t next) noexcept {
        ++receivers_;
        for (std::uint64_t p = std::max(next, oldest()); p < tail_; ++p)
            ++slots_[p % capacity_].unseen;
    }
    /// A receiver at `next` goes (this takes the lock). The values nobody
    /// else will take are destroyed one at a time after the unlock: a
    /// value's destructor may use this channel (it may hold its last sender).
    void drop_receiver(std::uint64_t next) noexcept {
        std::uint64_t end = 0;
        {
            std::lock_guard guard(lock);
            --receivers_;
            end = tail_;  // values sent from now on do not count this receiver
        }
        for (std::uint64_t p = next;; ++p) {
            std::optional<T> doomed;  // destroyed after the unlock
            std::lock_guard guard(lock);
            p = std::max(p, oldest());  // those before were overwritten meanwhile
            if (p >= end) break;
            slot& s = slots_[p % capacity_];
            if (--s.unseen == 0) {
                doomed = std::move(s.value);
                s.value.reset();
            }
        }
    }
    std::size_t receiver_count() const noexcept { return receivers_; }

    /// Under lock: `w` waits for the next value.
    void wait(waiter& w, rtkit::detail::task_header* task) noexcept {
        arm(w, task);
        waiting_.push_back(w);
    }
    /// A wait ends unused (cancelled, or the awaiter destroyed): a queued
    /// waiter leaves the line. A granted one held nothing: the value it was
    /// woken for stays in its slot for the receiver's next recv.
    void abandon(waiter& w) noexcept {
        if (w.state.load(std::memory_order_acquire) == wait_state::idle) return;
        std::lock_guard guard(lock);
        stop_waiting(w);
    }
    /// Under lock: `w` is out of the line and idle.
    void stop_waiting(waiter& w) noexcept {
        if (w.state.load(std::memory_order_relaxed) == wait_state::queued) waiting_.remove(w);
        w.state.store(wait_state::idle, std::memory_order_relaxed);
    }

    /// Sender handles. Changed without the lock (a copy of a sender made while
    /// the lock is held, copying a value that holds one, must not wait for
    /// it); whoever drops it to zero takes the lock to wake the receivers.
    std::atomic<std::size_t> senders{1};
    void drop_sender() noexcept {
        if (senders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        pending_wakes wakes;
        std::lock_guard guard(lock);
        while (waiter* w = waiting_.pop_front())
            settle(*w, wait_state::granted, wakes);
    }

    /// Every sender and every receiver holds one reference.
    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  private:
    struct slot {
        std::optional<T> value;
        std::size_t unseen = 0;  ///< receivers yet to take the value
    };
    /// The position of the oldest value the ring may still hold.
    std::uint64_t oldest() const noexcept { return tail_ > capacity_ ? tail_ - capacity_ : 0; }

    // Guarded by lock:
    std::unique_ptr<slot[]> slots_;
    std::size_t capacity_;
    std::uint64_t tail_ = 0;  ///< the position of the next value sent
    std::size_t receivers_ = 0;
    waiter_queue waiting_;  ///< receivers waiting for the next value
    std::atomic<int> refs_{0};
};

}  // namespace detail

/// The sending end of a broadcast. Copyable: the receivers see the end once
/// every copy is gone. send() never waits: when the ring is full, the oldest
/// value is overwritten, and receivers that had not taken it lag. Any thread
/// may use it.
template <class T>
class broadcast_sender {
  public:
    broadcast_sender(const broadcast_sender& other) noexcept : state_(other.state_) {
        if (!state_) return;
        state_->senders.fetch_add(1, std::memory_order_relaxed);
        state_->add_ref();
    }
    broadcast_sender(broadcast_sender&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)) {}
    broadcast_sender& operator=(broadcast_sender other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~broadcast_sender() {
        if (!state_) return;
        state_->drop_sender();
        state_->release();
    }

    /// Sends a copy of `value` to every receiver there is now and wakes the
    /// waiting ones. Returns how many receivers will see it; 0 when there are
    /// none, and then `value` was not moved from (nothing was sent).
    std::size_t send(T&& value) { return send_impl(std::move(value)); }
    std::size_t send(const T& value) { return send_impl(value); }

    /// A new receiver, which sees the values sent from now on.
    broadcast_receiver<T> subscribe() { return broadcast_receiver<T>(state_); }

    /// How many receivers there are now.
    std::size_t receiver_count() const {
        std::lock_guard guard(state_->lock);
        return state_->receiver_count();
    }

  private:
    friend struct detail::broadcast_factory;
    explicit broadcast_sender(detail::broadcast_state<T>* state) noexcept : state_(state) {
        state_->add_ref();
    }
    template <class U>
    std::size_t send_impl(U&& value) {
        detail::pending_wakes wakes;
        std::optional<T> overwritten;  // destroyed after the unlock
        std::lock_guard guard(state_->lock);
        return state_->push(std::forward<U>(value), overwritten, wakes);
    }

    detail::broadcast_state<T>* state_;
};

/// A receiving end of a broadcast: it takes every value sent since it was
/// made, in order. Copyable: a copy is a receiver of its own that has the
/// same values yet to take. One task at a time receives through one receiver;
/// it must outlive the co_await of its recv(). Any thread may use it.
template <class T>
class broadcast_receiver {
  public:
    broadcast_receiver(const broadcast_receiver& other) : state_(other.state_) {
        if (!state_) return;
        std::lock_guard guard(state_->lock);
        next_ = other.next_;
        state_->copy_receiver(next_);
        state_->add_ref();
    }
    broadcast_receiver(broadcast_receiver&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)), next_(other.next_) {}
    broadcast_receiver& operator=(broadcast_receiver other) noexcept {
        std::swap(state_, other.state_);
        std::swap(next_, other.next_);
        return *this;
    }
    ~broadcast_receiver() {
        if (!state_) return;
        state_->drop_receiver(next_);
        state_->release();
    }

    /// Awaitable of recv().
    class recv_awaiter {
      public:
        explicit recv_awaiter(broadcast_receiver& owner) noexcept : owner_(owner) {}
        recv_awaiter(const recv_awaiter&) = delete;
        recv_awaiter& operator=(const recv_awaiter&) = delete;
        ~recv_awaiter() { owner_.state_->abandon(node_); }

        bool await_ready() {
            task_ = rtkit::detail::current_task();
            if (detail::cancel_pending(task_)) return true;
            std::unique_lock guard(owner_.state_->lock);
            result_ = owner_.state_->take(owner_.next_);
            if (result_) return rtkit::detail::coop_continue(task_);
            detail::require_task(task_);  // throws (and unlocks) outside a task
            guard.release();              // one critical section with the queueing
            return false;
        }
        void await_suspend(std::coroutine_handle<>) noexcept {
            if (result_) return rtkit::detail::suspend_as_yield();
            owner_.state_->wait(node_, task_);
            owner_.state_->lock.unlock();
        }
        broadcast_result<T> await_resume() {
            if (!result_) {
                detail::check_cancel(task_);  // the value stays for the next recv
                std::lock_guard guard(owner_.state_->lock);
                const bool woken =
                    node_.state.load(std::memory_order_relaxed) != detail::wait_state::queued;
                owner_.state_->stop_waiting(node_);
                // Resumed without news and with no cancel: unwind.
                if (!woken) rtkit::detail::throw_cancelled();
                // Woken by a send (the value, or a lag if it was overwritten
                // since) or by the last sender leaving (the end).
                result_ = owner_.state_->take(owner_.next_);
            }
            return std::move(*result_);
        }

      private:
        broadcast_receiver& owner_;
        detail::waiter node_;
        rtkit::detail::task_header* task_ = nullptr;  ///< captured in await_ready
        std::optional<broadcast_result<T>> result_;
    };

    /// `auto r = co_await rx.recv()`: the next value (waiting for one), a lag
    /// (values this receiver had not taken were overwritten: r.missed() says
    /// how many, and the next recv gives the oldest value still held), or the
    /// end once every sender is gone and every value was taken. A
    /// cancellation point: cancelled, it takes nothing.
    [[nodiscard]] recv_awaiter recv() noexcept { return recv_awaiter(*this); }

    /// recv without waiting: empty when there is no value yet.
    broadcast_result<T> try_recv() {
        std::lock_guard guard(state_->lock);
        std::optional<broadcast_result<T>> r = state_->take(next_);
        return r ? std::move(*r) : broadcast_result<T>::empty();
    }

    /// Values this receiver can still take (not counting those it missed).
    std::size_t size() const {
        std::lock_guard guard(state_->lock);
        return state_->pending(next_);
    }
    std::size_t capacity() const noexcept { return state_->capacity(); }

  private:
    friend class broadcast_sender<T>;
    friend struct detail::broadcast_factory;
    explicit broadcast_receiver(detail::broadcast_state<T>* state) : state_(state) {
        std::lock_guard guard(state_->lock);
        next_ = state_->subscribe();
        state_->add_ref();
    }

    detail::broadcast_state<T>* state_;
    std::uint64_t next_ = 0;  ///< the position this receiver takes next; guarded by the lock
};

/// A broadcast channel: its sender and a first receiver, as make_broadcast
/// returns them (`auto [tx, rx] = make_broadcast<T>(capacity);`).
///
/// Every receiver gets its own copy of every value sent after it was made
/// (T must be copyable, and movable without throwing; the last receiver to
/// take a value gets it moved).
/// The ring holds `capacity` values: send never waits, and a receiver more
/// than `capacity` values behind lags (tokio's broadcast). T's copy and move
/// run under the channel's lock, so they must not use the same channel (its
/// destructor may: values are destroyed outside the lock). Thread-safe: tasks of any runtime and
/// plain threads (through send and try_recv) may share one.
template <class T>
struct broadcast {
    broadcast_sender<T> tx;
    broadcast_receiver<T> rx;
};

namespace detail {
/// Builds the two ends around one new state (the ends' constructors are private).
struct broadcast_factory {
    template <class T>
    static broadcast<T> make(std::size_t capacity) {
        static_assert(std::is_copy_constructible_v<T>, "a broadcast copies T for each receiver");
        static_assert(std::is_nothrow_move_constructible_v<T>,
                      "a broadcast moves T in and out of its ring, where a throw would lose it");
        if (capacity == 0)
            throw std::invalid_argument("make_broadcast: capacity must be at least 1");
        auto* state = new broadcast_state<T>(capacity);
        broadcast_sender<T> tx(state);
        return broadcast<T>{std::move(tx), broadcast_receiver<T>(state)};
    }
};
}  // namespace detail

/// A broadcast channel whose ring holds `capacity` (>= 1) values; throws
/// std::invalid_argument for zero.
template <class T>
broadcast<T> make_broadcast(std::size_t capacity) {
    return detail::broadcast_factory::make<T>(capacity);
}

}  // namespace rtkit::sync
