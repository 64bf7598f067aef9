#pragma once
// The current-thread worker, resting in its slot, reserved for the thread
// that returned it: that thread's next block_on borrows it with no lock and
// no locked instruction. Anyone else who wants the resting worker first
// revokes the reservation, paying for both sides (asymmetric_fence.hpp).
#include <atomic>
#include <cstdint>

#include "asymmetric_fence.hpp"
#include "rtkit/detail/chaos.hpp"
#include "thread_context.hpp"

namespace rtkit::detail {

/// The owner's side is lock-free: try_enter() and leave() bracket a borrow.
/// Everything else runs under the slot's lock: grant() when a loan returns
/// the worker idle, revoke() before anyone takes the resting worker or
/// closes the slot, end_mine() when the owner's borrow turns into an ordinary
/// loan or hands the worker over.
///
/// A borrow and a revocation meet as two store-then-load pairs: the owner
/// stores `inside` and loads `revoked`, a revoker stores `revoked` and loads
/// `inside`. Either the owner sees the revocation (and does not borrow, or
/// hands the worker over when it leaves) or the revoker sees the borrow (and
/// treats the worker as loaned until then), never neither.
class worker_reservation {
  public:
    /// Owner thread: true when it may now borrow the resting worker without
    /// the slot's lock, until leave(). False when it is not the owner, or the
    /// reservation was revoked.
    bool try_enter() noexcept {
        if (owner_.load(std::memory_order_relaxed) != kernel_thread_number()) return false;
        inside_.store(true, std::memory_order_relaxed);
        light_fence();
        RTKIT_CHAOS_POINT(reservation_entering);
        if (!revoked_.load(std::memory_order_acquire)) return true;
        inside_.store(false, std::memory_order_release);
        return false;
    }

    /// Owner thread, ending a borrow that left the worker resting as it found
    /// it. True when the reservation was revoked meanwhile: whoever revoked it
    /// may be waiting for the worker, so the owner must hand it over (under
    /// the slot's lock).
    bool leave() noexcept {
        inside_.store(false, std::memory_order_release);
        light_fence();
        RTKIT_CHAOS_POINT(reservation_leaving);
        return revoked_.load(std::memory_order_acquire);
    }

    /// Under the slot's lock, as a loan leaves the worker resting idle:
    /// reserves it for the calling thread. Does nothing while backing off
    /// after revocations, or where the fence is not available.
    void grant() noexcept;

    /// Under the slot's lock, before taking the resting worker (or closing the
    /// slot): ends the reservation. True when its owner is inside a borrow now:
    /// the worker then counts as loaned, and the owner hands it over when it
    /// leaves.
    bool revoke() noexcept;

    /// Under the slot's lock, by the owner: the reservation ends, and with it
    /// the owner's borrow, if any (one that must go on as an ordinary loan,
    /// or one that was revoked and hands the worker over now). Nothing when
    /// the worker is reserved for another thread by now.
    void end_mine() noexcept {
        if (owner_.load(std::memory_order_relaxed) != kernel_thread_number()) return;
        owner_.store(0, std::memory_order_relaxed);
        inside_.store(false, std::memory_order_release);
    }

    /// How many borrows went without the lock (a snapshot, any thread).
    std::uint64_t borrows() const noexcept { return borrows_.load(std::memory_order_relaxed); }
    /// Owner thread, inside a borrow: counts it.
    void count_borrow() noexcept {
        borrows_.store(borrows_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }

  private:
    /// The thread the worker is reserved for (kernel_thread_number),
    /// or 0: none.
    std::atomic<std::uint64_t> owner_{0};
    /// The owner is borrowing the worker now.
    std::atomic<bool> inside_{false};
    /// Someone else wants the worker: no new borrow may start.
    std::atomic<bool> revoked_{false};
    std::atomic<std::uint64_t> borrows_{0};
    // Under the slot's lock: a revocation by another thread doubles how many
    // idle returns pass before the next grant, so that threads that take
    // turns at block_on do not pay a revocation per call.
    std::uint32_t backoff_ = 0;
    std::uint32_t returns_to_skip_ = 0;
};

}  // namespace rtkit::detail
