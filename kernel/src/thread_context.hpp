#pragma once
// Per-thread kernel state: which task is being polled (current_task_slot, in
// task_header.hpp) and which worker this thread drives. Every change is a
// scoped guard that restores the previous value, so nested block_on calls
// (same or different runtimes) unwind cleanly.
#include "frame_pages.hpp"
#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class handle;

/// The handle of the worker this thread drives (may touch its lanes, timers,
/// store and, for the current-thread flavor, its reactor), or null, of any
/// runtime. A plain (GNU `__thread`) variable in the static TLS block of the
/// kernel library: every wake and spawn reads it to decide local or remote.
/// Whether the thread drives a given runtime is the handle's question
/// (handle::driven_here, whose header declares the slot too).
extern __thread handle* driving_slot __attribute__((tls_model("initial-exec")));

inline handle* driving() noexcept {
    return driving_slot;
}

/// This thread's number in the kernel, 0 until it asks (kernel_thread_number).
extern __thread std::uint64_t thread_number_slot __attribute__((tls_model("initial-exec")));
/// Gives this thread its number.
std::uint64_t number_this_thread() noexcept;
/// 1, 2, ... in the order the threads first ask; never reused, so unlike a
/// std::thread::id it tells a thread from one that ended before it started.
/// One load once the thread has its number.
inline std::uint64_t kernel_thread_number() noexcept {
    const std::uint64_t n = thread_number_slot;
    return n ? n : number_this_thread();
}

/// Installs `task` as the task being polled, for one scope.
class scoped_task {
  public:
    explicit scoped_task(task_header* task) noexcept : saved_(current_task_slot) {
        current_task_slot = task;
    }
    ~scoped_task() { current_task_slot = saved_; }
    scoped_task(const scoped_task&) = delete;
    scoped_task& operator=(const scoped_task&) = delete;

  private:
    task_header* saved_;
};

/// Makes this thread the driver of the worker behind `h`, for one scope; the
/// frame chunks it maps meanwhile follow `huge_pages`, the setting of that
/// worker's runtime.
/// The thread's cooperative budget starts full, so that where a run's forced
/// yields fall does not depend on what the thread ran before (a lab run
/// replays).
class scoped_driving {
  public:
    scoped_driving(handle* h, bool huge_pages) noexcept
        : driven_(h),
          saved_(driving_slot),
          outer_(innermost_driving_scope),
          pages_(h && huge_pages) {
        driving_slot = h;
        innermost_driving_scope = this;
        coop_budget_slot = coop_budget;
    }
    ~scoped_driving() {
        driving_slot = saved_;
        innermost_driving_scope = outer_;
    }
    scoped_driving(const scoped_driving&) = delete;
    scoped_driving& operator=(const scoped_driving&) = delete;

    /// The worker this scope drives (null: none), and the scope around it.
    handle* driven() const noexcept { return driven_; }
    const scoped_driving* outer() const noexcept { return outer_; }

    /// The calling thread's innermost scope, or null.
    static const scoped_driving* innermost() noexcept { return innermost_driving_scope; }

  private:
    /// The innermost scoped_driving of this thread: the scopes form a chain
    /// up the thread's stack (handle::driven_at_any_depth walks it).
    static __thread const scoped_driving* innermost_driving_scope
        __attribute__((tls_model("initial-exec")));

    handle* driven_;
    handle* saved_;
    const scoped_driving* outer_;
    scoped_frame_pages pages_;
};

}  // namespace rtkit::detail
