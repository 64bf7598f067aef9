#pragma once
// Per-thread kernel state: which task is being polled and which worker this
// thread holds. Every change is a scoped guard that restores the previous
// value, so nested block_on calls (same or different runtimes) unwind cleanly.
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class worker;
class scheduler;

struct thread_context {
    /// The task being polled on this thread.
    task_header* task = nullptr;
    /// The runtime whose task is being polled, or whose worker this thread drives.
    scheduler* sched = nullptr;
    /// The worker this thread holds (may touch its lanes, timers and reactor).
    worker* active_worker = nullptr;
};

thread_context& this_thread() noexcept;

/// Installs `task` (of `sched`) as the task being polled, for one scope.
class scoped_task {
  public:
    scoped_task(task_header* task, scheduler* sched) noexcept : saved_(this_thread()) {
        this_thread().task = task;
        this_thread().sched = sched;
    }
    ~scoped_task() {
        this_thread().task = saved_.task;
        this_thread().sched = saved_.sched;
    }
    scoped_task(const scoped_task&) = delete;
    scoped_task& operator=(const scoped_task&) = delete;

  private:
    thread_context saved_;
};

/// Makes this thread the holder of `w` (of `sched`), for one scope.
class scoped_worker {
  public:
    scoped_worker(worker* w, scheduler* sched) noexcept : saved_(this_thread()) {
        this_thread().active_worker = w;
        this_thread().sched = sched;
    }
    ~scoped_worker() {
        this_thread().active_worker = saved_.active_worker;
        this_thread().sched = saved_.sched;
    }
    scoped_worker(const scoped_worker&) = delete;
    scoped_worker& operator=(const scoped_worker&) = delete;

  private:
    thread_context saved_;
};

}  // namespace rtkit::detail
