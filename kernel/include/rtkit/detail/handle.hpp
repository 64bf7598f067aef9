#pragma once
// rtkit::detail::handle: the one way into a runtime's workers. Not API: the
// templates of the public headers call it; its functions live in the kernel.
#include <chrono>
#include <cstdint>

#include "rtkit/outcome.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/task_name.hpp"
#include "rtkit/time.hpp"
#include "rtkit/timer_driver.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

class handle;
class io_registration;
class worker;
/// The handle of the worker the calling thread drives, or null, for the
/// queries below (the kernel's per-thread state: src/thread_context.hpp).
extern __thread handle* driving_slot __attribute__((tls_model("initial-exec")));
class worker_group;
class remote_timer;
struct region_node;
struct task_header;

/// A timer armed for a task: which worker's timer driver holds it, and how.
struct timer_ticket {
    handle* owner = nullptr;         ///< the handle of the worker that armed it
    timer_handle id = 0;             ///< in that worker's timer driver, once armed
    remote_timer* remote = nullptr;  ///< set when armed from a thread not driving `owner`
};

/// One per worker of a runtime; any thread may use any of them.
///
/// Everything that makes work for a runtime goes through a handle: spawning,
/// waking, arming and cancelling timers, cancellation requests, and reaching
/// the reactor for I/O. Each operation decides in one place whether the
/// calling thread drives a worker of this runtime (then it acts on that worker
/// directly: a push into its lanes, an insert into its timer driver) or not
/// (then it hands the work over lock-free, through the runtime's injector or a
/// worker's inbox, and unparks a worker only if one is parked). The worker
/// itself only dispatches; drivers only call down into workers and handles.
class handle {
  public:
    handle(worker_group& group, worker& w, std::uint16_t index) noexcept
        : group_(&group), worker_(&w), index_(index) {}
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;

    /// Registers a prepared task in `region` and makes it runnable.
    void spawn(region_node& region, task_header* task);
    /// The same, naming the task for traces (ignored when not tracing).
    void spawn_named(region_node& region, task_header* task, const task_name& name);
    /// The same for a task only ever polled on the calling thread. Throws
    /// no_runtime_error where that thread cannot poll it (it drives no worker
    /// of this runtime).
    void spawn_local(region_node& region, task_header* task);
    /// Queues a task whose `scheduled` bit the caller just won (a wake):
    /// counts the wake, then route().
    void schedule(task_header* task) noexcept;
    /// Puts a task that is to run where it may run, as seen from the calling
    /// thread: the one rule for where a task goes once it was admitted.
    /// - A local (spawn_local) task runs only on the thread that spawned it,
    ///   its owner, and only from its home worker, the one that admitted it.
    ///   Off that worker it goes to its home's inbox; on a thread driving its
    ///   home that is not its owner (a current-thread worker loaned to
    ///   another block_on caller) the worker holds it until its owner drives
    ///   the worker again (worker::hold_for_owner); on its owner it is pushed.
    /// - Any other task is pushed into the lanes of the worker this thread
    ///   drives, or, from a thread driving none of this runtime's workers,
    ///   handed to the runtime (worker_group::inject).
    /// Called by schedule(), and by a worker about to poll a local task on a
    /// thread that is not its owner.
    void route(task_header* task) noexcept;

    /// Arms `w` at `deadline` in a timer driver of this runtime.
    timer_ticket arm_timer(instant deadline, waker w);
    /// Disarms a timer that has not fired (a no-op once it fired).
    void cancel_timer(timer_ticket& ticket) noexcept;
    /// Releases what a fired or cancelled ticket still holds.
    static void finish_timer(timer_ticket& ticket) noexcept;

    /// Asks `task` to unwind at its next await point (any thread): it moves to
    /// the cancel lane, wherever it waits.
    void request_cancel(task_header* task, cancel_reason reason);
    /// Cancels every task in `region` and below it (any thread).
    void cancel_region(region_node& region, cancel_reason reason);

    /// Whether the calling thread may call the runtime's reactor now: any
    /// thread when the workers share it (multi-thread; each call takes the
    /// reactor lock, worker_group::io_lock), otherwise only the thread that
    /// drives the worker, which may be blocked in the reactor itself.
    bool may_call_reactor_here() const noexcept;
    /// Registers `fd` for `what` with the runtime's reactor. Throws
    /// no_runtime_error where this thread may not call it; std::system_error
    /// from io_driver::add.
    io_token register_io(int fd, interest what);
    /// Deregisters `registration` (one of this runtime's) and closes `fd`,
    /// from any thread: at once where this thread may call the reactor,
    /// otherwise the worker does both when it next runs (a request in its
    /// inbox), so the descriptor's number is not reused before the reactor
    /// has let go of it.
    void close_io(io_registration& registration, int fd) noexcept;

    /// The runtime's clock (its timer driver's).
    instant now() const noexcept;

    /// "Does the calling thread drive this runtime?", the one place that asks:
    /// the handle of the worker it drives, when that worker is one of this
    /// runtime's; null otherwise.
    handle* driven_here() const noexcept { return driven_here(*group_); }
    /// The same, for code that holds only the runtime's worker group.
    static handle* driven_here(const worker_group& group) noexcept {
        handle* const here = driving_slot;
        return here && here->group_ == &group ? here : nullptr;
    }
    /// Whether the calling thread drives this very worker.
    bool is_driven_here() const noexcept { return driving_slot == this; }
    /// Whether the calling thread drives a worker of `group` anywhere up its
    /// stack: now, or further out, beyond a block_on of another runtime that
    /// a task of this one called. (driven_here asks only about now.)
    static bool driven_at_any_depth(const worker_group& group) noexcept;

    /// The polling time before sleeping of the runtime's workers
    /// (runtime::set_poll_before_park; any thread).
    void set_poll_before_park(std::chrono::microseconds d) noexcept;
    std::chrono::microseconds poll_before_park() const noexcept;

    /// Whether the runtime records trace events (runtime_config::trace).
    bool tracing() const noexcept { return tracing_; }
    void set_tracing() noexcept { tracing_ = true; }
    /// Records a region opening or closing (call only when tracing()).
    void trace_region(std::uint64_t region, bool open) noexcept;

    worker_group& group() const noexcept { return *group_; }
    worker& owner() const noexcept { return *worker_; }
    std::uint16_t index() const noexcept { return index_; }

  private:
    /// route(), from a thread that drives `here` (driven_here()).
    void route(task_header* task, handle* here) noexcept;
    /// Records the spawn of `task` (and names it) in the trace.
    void trace_spawn(task_header* task, const task_name* name);

    worker_group* group_;
    worker* worker_;
    std::uint16_t index_;
    bool tracing_ = false;
};

}  // namespace rtkit::detail
