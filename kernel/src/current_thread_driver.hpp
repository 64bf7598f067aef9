#pragma once
// The loan protocol of the current-thread runtime: its single worker runs on a
// background thread between block_on calls, and block_on borrows it.
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "rtkit/detail/region_node.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "runtime_driver.hpp"
#include "worker.hpp"
#include "worker_reservation.hpp"

namespace rtkit::detail {

/// Ends the current-thread worker's life when the last hold on it goes:
/// retires it (cancels and unwinds every task) on the thread that drops it.
struct retire_worker {
    void operator()(worker* w) const noexcept;
};
/// The right to drive the current-thread runtime's worker, held by one owner
/// at a time (the slot, the background thread, or a block_on caller).
using held_worker = std::unique_ptr<worker, retire_worker>;

/// Where the worker is, who may take it, and how it comes back.
///
/// The worker moves between the background thread and block_on callers through
/// one slot guarded by a lock: background -> requested (a caller asked) ->
/// offered (the background thread stopped at a dispatch boundary) -> loaned
/// (the caller drives it) -> returned -> background. A caller that returns an
/// idle worker leaves it resting in the slot without waking the background
/// thread, so the next block_on takes it back with no thread handshake; remote
/// work or a due timer wakes the background thread to take it instead.
/// Shutdown closes the slot for good.
///
/// The background thread starts the first time a resting worker must be
/// driven, not with the runtime: a program that only calls block_on stays
/// single-threaded, which the kernel rewards (no file reference counting per
/// socket call, no lock contention).
///
/// With a thread-bound reactor (thread_bound_reactor_name) only the first
/// thread that takes the worker ever drives it: no background thread, and
/// block_on from another thread is refused.
class current_thread_driver final : public runtime_driver {
  public:
    /// Drives the one worker of `group`; roots of block_on join `root_region`.
    current_thread_driver(worker_group& group, region_node& root_region);
    /// Joins the background thread if shutdown_from_caller did not.
    ~current_thread_driver() override;
    current_thread_driver(const current_thread_driver&) = delete;
    current_thread_driver& operator=(const current_thread_driver&) = delete;

    /// Takes the runtime's idle worker: it rests in the slot until a block_on
    /// borrows it or work for it starts the background thread.
    void adopt(held_worker w);

    /// Body of the background thread: dispatches until a caller asks for the
    /// worker, offers it, waits for it to come back, repeats; retires the worker
    /// on shutdown. Without `w` it first waits for a returned worker that must
    /// be driven.
    void run_background(held_worker w);

    /// Runs the block_on root on the calling thread: with the worker when
    /// this thread can borrow it (or drives it already, further up its
    /// stack), else without it while another thread holds it.
    std::exception_ptr drive(root_reference& root) override;

    /// Graceful part of shutdown: lets the worker run until no task is left
    /// or `deadline` passes, on this thread when it can borrow the worker;
    /// while another thread holds it, waits for the store to empty (or the
    /// worker to come back) until the deadline. From a task or root this
    /// thread polls, or on a thread that is not a thread-bound reactor's home,
    /// returns at once.
    void drain_until(instant deadline) override;

    /// Runtime shutdown from the calling thread: borrows the worker if it can,
    /// so the caller's own local tasks are unwound on the caller's thread, then
    /// shuts down and retires the worker here. Without the worker (another
    /// thread has it on loan), whoever holds it retires it. Returns once the
    /// background thread, if it ever started, has ended. A call from outside
    /// the runtime while another is under way waits for it, then returns
    /// false; so does a call from inside (a task, or a destructor the
    /// retirement runs), at once: that work needs this thread to return.
    bool shutdown() override;

    /// Roots that drive the worker, each in its store meanwhile. (A root
    /// whose worker another thread holds is polled without it, uncounted.)
    std::size_t roots_running() override { return worker_.store().live_roots(); }
    std::size_t roots_outside_stores() override { return 0; }
    std::uint64_t reserved_borrows() const override { return reservation_.borrows(); }

  private:
    friend struct current_thread_driver_test_access;  // tests force slot states
    enum class slot_state { background, requested, offered, loaned, returned, closed };

    /// A borrowed worker that goes back to the slot on every exit path.
    class loan;

    /// Starts the background thread unless it runs or shutdown began. If the
    /// system refuses a thread, says so once; the work waits for a block_on.
    void start_background() noexcept;
    /// Ends the background thread after `error` escaped its dispatch loop:
    /// reports it once on stderr and puts the worker back in the slot for the
    /// next block_on (or retires it when shutdown closed the slot).
    void stop_background_after_failure(held_worker w, std::exception_ptr error) noexcept;
    /// Waits the worker back: until it sits returned in the slot and must be
    /// driven, then takes it. Null when shutdown closed the slot.
    held_worker take_back_when_needed(std::unique_lock<sync::detail::spin_lock>& lock);
    /// Takes the worker from the slot, or null. Callers first ask whether this
    /// thread may drive a thread-bound reactor (io_driver::claim_for_this_thread).
    held_worker acquire();
    /// Puts the worker back in the slot, resting when it is idle (which
    /// `seen_idle` says the caller just found), else for the background
    /// thread to take.
    void release(held_worker w, bool seen_idle = false);
    /// Runs the root with `w` (run_root), then retires it there. Every exit
    /// path (a plugin throwing under the drive included) leaves the root
    /// retired and out of the store.
    std::exception_ptr drive_root_on(worker& w, root_reference& reference);
    /// drive_root_on's second half, for a root in the store already: runs it
    /// on unless its first poll (`polled_once`) finished it or ended in
    /// `plugin_error`, then retires it and rethrows that error.
    std::exception_ptr finish_root_on(worker& w, root_reference& reference, bool polled_once,
                                      std::exception_ptr plugin_error);
    /// Destroys a finished root's frame with its context, then forgets it.
    std::exception_ptr retire_root(worker& w, root_reference& reference);
    /// After the root, with the worker on loan: runs what is runnable now,
    /// a bounded number of turns, and never waits on timers or I/O.
    void drain_after_root(loan& borrowed);
    /// block_on on the worker reserved for this thread (reservation_ entered):
    /// the root's first poll without the lock; when that finishes it and
    /// leaves the worker as idle as it was, the worker stays reserved;
    /// otherwise the borrow becomes an ordinary loan.
    std::exception_ptr drive_reserved(root_reference& reference);
    /// Turns this thread's borrow of the reserved worker into a loan.
    held_worker loan_reserved();
    /// After a borrow whose reservation was revoked meanwhile: gives the
    /// worker to whoever wanted it (the background thread, or a shutdown
    /// that left retiring it to this thread).
    void hand_over_reserved();
    /// True when a worker resting in the slot must be driven again now.
    bool resting_worker_needs_driving() const;
    /// Closes the slot, wakes every waiter and retires a worker held in the slot
    /// (outside the lock: its destructor may re-enter shutdown).
    void close_slot();

    worker_group& group_;
    worker& worker_;  ///< the group's one worker (whoever holds it drives it)
    region_node& root_region_;
    /// Guards the slot. A spin lock: block_on takes it twice per call, and its
    /// plain-store unlock saves two locked instructions per call over a mutex
    /// (W8). Nobody holds it across a wait: waits go through the condition variable.
    sync::detail::spin_lock mutex_;
    std::condition_variable_any changed_;
    slot_state slot_ = slot_state::background;
    std::thread::id requester_;
    held_worker held_;  ///< offered or returned worker
    /// The returned worker, when resting with nothing to wait for, reserved
    /// for the thread that returned it.
    worker_reservation reservation_;
    bool resting_ = false;  ///< the returned worker was idle
    /// When the resting worker's earliest timer comes due (no_deadline: none).
    instant resting_deadline_ = no_deadline;
    static constexpr instant no_deadline = instant::max();
    /// Raised while a caller waits for the worker; the background dispatch
    /// loop stops at its next boundary when it sees it.
    std::atomic<bool> handover_requested_{false};

    /// The background thread, once started; its own mutex, since starting a
    /// thread is too slow to do under the spin lock.
    std::mutex background_mutex_;
    std::thread background_;
    std::atomic<bool> background_started_{false};
    bool background_closed_ = false;  ///< shutdown began: never start it again
    bool background_failure_reported_ = false;

    /// Held by a shutdown called from outside the runtime.
    std::mutex shutdown_mutex_;
    std::atomic<bool> shutdown_begun_{false};
};

}  // namespace rtkit::detail
