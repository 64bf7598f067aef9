#pragma once
// The multi-thread flavor: N threads, each driving one worker for its whole
// life, taking injected work, stealing from each other, parking when dry.
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime_driver.hpp"
#include "worker.hpp"

namespace rtkit::detail {

/// Runs every worker of a multi-thread group on a thread of its own.
///
/// A worker thread loops: run a task from its lanes; when they are empty,
/// take a batch from the injector, then (as one of a bounded number of
/// searching workers) steal about half of another worker's queued tasks; when
/// nothing is found, park: the first parker blocks in the shared reactor, the
/// others on a futex, each no longer than its own next timer. New work wakes a
/// parked worker only when no worker is searching (see idle_workers).
///
/// block_on runs on a thread that is not one of the workers: its root is
/// polled there, its spawns go through the injector. From a worker thread it
/// is refused (it would block that worker).
class multi_thread_driver final : public runtime_driver {
  public:
    multi_thread_driver(worker_group& group, region_node& root_region);
    /// Stops and joins the threads if shutdown() did not.
    ~multi_thread_driver() override;
    multi_thread_driver(const multi_thread_driver&) = delete;
    multi_thread_driver& operator=(const multi_thread_driver&) = delete;

    /// Starts one thread per worker. Throws std::system_error when the
    /// system refuses a thread (the ones started are stopped again).
    void start();

    /// Runs a block_on root to completion on the calling thread, then retires
    /// it there. Throws std::logic_error on one of the workers' threads.
    std::exception_ptr drive(root_reference& root) override;

    /// Graceful part of shutdown: waits until no task is left or `deadline`.
    /// Roots polled by the calling thread (it calls from inside one) are not
    /// waited for: they cannot finish while it waits.
    void drain_until(instant deadline) override;

    /// Stops the workers (their threads unwind their own local tasks), joins
    /// them, then retires every other task on this thread. Idempotent; a
    /// call while another thread's call is under way waits for that one to
    /// end. On one of the worker threads (from a task) it only begins: the
    /// threads stop, and the rest waits for a call from another thread (the
    /// runtime's destructor). Returns whether it is complete.
    bool shutdown() override;

    /// How many block_on roots are running (a snapshot, any thread).
    std::size_t roots_running() override;
    /// All of them: their callers poll them, off the workers.
    std::size_t roots_outside_stores() override { return roots_running(); }

  private:
    void run_worker(worker& w);
    /// Moves a batch from the injector into `w`'s lanes; false when none.
    bool take_injected(worker& w);
    /// Steals from another worker into `w`'s lanes; false when none had any.
    bool steal(worker& w);
    /// Parks `w` until new work, its next timer, I/O or shutdown. Returns
    /// whether it woke as a searcher (new work picked it).
    bool park(worker& w, bool searching);
    /// On the worker's own thread at shutdown: unwinds its local tasks,
    /// which no other thread may poll. Cancels every task of the worker
    /// first, and gives up after a bounded number of polls (as retire does),
    /// so that tasks which keep running cannot keep the thread alive.
    void unwind_local_tasks(worker& w);
    /// Asks every running block_on root to unwind (shutdown, or a failure
    /// that stopped the workers).
    void cancel_roots();

    worker_group& group_;
    region_node& root_region_;
    std::vector<std::thread> threads_;
    std::mutex shutdown_mutex_;  ///< held by the one shutdown() that joins and retires
    bool stopped_ = false;       ///< under shutdown_mutex_
    /// Roots of block_on calls in progress (cancelled by shutdown), with the
    /// thread that polls each.
    std::mutex roots_mutex_;
    std::unordered_map<task_header*, std::thread::id> roots_;
};

}  // namespace rtkit::detail
