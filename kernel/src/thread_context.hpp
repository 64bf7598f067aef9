#pragma once
// Per-thread kernel state: which task is being polled and which worker this
// thread holds. Every change is a scoped guard that restores the previous
// value, so nested block_on calls (same or different runtimes) unwind cleanly.
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class worker;
class scheduler;

/// Per-thread kernel state besides the polled task (current_task_slot).
struct thread_context {
    // No initialisers: a __thread variable must be trivially constructible;
    // static storage starts zeroed.
    /// The runtime whose task is being polled, or whose worker this thread drives.
    scheduler* sched;
    /// The worker this thread holds (may touch its lanes, timers and reactor).
    worker* active_worker;
};

/// initial-exec: a direct %fs-relative access, no __tls_get_addr call. The
/// kernel library is linked by programs, not dlopen'ed late, and this is a few
/// bytes of static TLS.
extern __thread thread_context this_thread_context __attribute__((tls_model("initial-exec")));

inline thread_context& this_thread() noexcept {
    return this_thread_context;
}

/// Installs `task` (of `sched`) as the task being polled, for one scope.
class scoped_task {
  public:
    scoped_task(task_header* task, scheduler* sched) noexcept
        : saved_task_(current_task_slot), saved_sched_(this_thread_context.sched) {
        current_task_slot = task;
        this_thread_context.sched = sched;
    }
    ~scoped_task() {
        current_task_slot = saved_task_;
        this_thread_context.sched = saved_sched_;
    }
    scoped_task(const scoped_task&) = delete;
    scoped_task& operator=(const scoped_task&) = delete;

  private:
    task_header* saved_task_;
    scheduler* saved_sched_;
};

/// Makes this thread the holder of `w` (of `sched`), for one scope.
class scoped_worker {
  public:
    scoped_worker(worker* w, scheduler* sched) noexcept : saved_(this_thread_context) {
        this_thread_context.active_worker = w;
        this_thread_context.sched = sched;
    }
    ~scoped_worker() { this_thread_context = saved_; }
    scoped_worker(const scoped_worker&) = delete;
    scoped_worker& operator=(const scoped_worker&) = delete;

  private:
    thread_context saved_;
};

}  // namespace rtkit::detail
