#pragma once
// rtkit::sync::detail::permit_queue: counted permits handed out in strict FIFO
// order; the heart of semaphore, mutex and the channel's free slots.
#include <cstddef>

#include "rtkit/sync/waiter.hpp"

namespace rtkit::sync::detail {

/// A count of free permits and the queue of waiters that asked for more than
/// were free. Strict FIFO, as in tokio: while anyone waits, nobody (not even a
/// try_acquire) overtakes them, so a large request at the head is not starved
/// by a stream of small ones. Permits released while the head waits are handed
/// to it directly (its state becomes granted), never left for a newcomer.
///
/// Not thread-safe: the owning primitive holds its lock around every call.
class permit_queue {
  public:
    explicit permit_queue(std::size_t permits) noexcept : available_(permits) {}

    std::size_t available() const noexcept { return available_; }
    bool has_waiters() const noexcept { return !waiters_.empty(); }
    std::size_t waiter_count() const noexcept { return waiters_.size(); }

    /// Takes `n` permits if they are free and nobody waits ahead.
    bool try_acquire(std::size_t n) noexcept {
        if (!waiters_.empty() || available_ < n) return false;
        available_ -= n;
        return true;
    }
    /// Queues `w` (its waker armed) for `w.amount` permits.
    void enqueue(waiter& w) noexcept { waiters_.push_back(w); }

    /// Returns `n` permits and grants them to waiters from the head while they fit.
    void release(std::size_t n, pending_wakes& wakes) noexcept {
        available_ += n;
        grant_from_head(wakes);
    }

    /// Takes a queued waiter out (its task stopped waiting). When it was the
    /// head, the ones behind it may now fit.
    void remove(waiter& w, pending_wakes& wakes) noexcept {
        const bool was_head = waiters_.front() == &w;
        waiters_.remove(w);
        w.state.store(wait_state::idle, std::memory_order_relaxed);
        if (was_head) grant_from_head(wakes);
    }

    /// Settles every waiter as closed.
    void close_all(pending_wakes& wakes) noexcept {
        while (waiter* w = waiters_.pop_front())
            settle(*w, wait_state::closed, wakes);
    }

  private:
    void grant_from_head(pending_wakes& wakes) noexcept {
        while (waiter* w = waiters_.front()) {
            if (w->amount > available_) return;
            available_ -= w->amount;
            waiters_.remove(*w);
            settle(*w, wait_state::granted, wakes);
        }
    }

    std::size_t available_;
    waiter_queue waiters_;
};

}  // namespace rtkit::sync::detail
