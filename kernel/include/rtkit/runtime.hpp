#pragma once
// rtkit::runtime: a runtime built from a configuration, and block_on.
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "rtkit/cx.hpp"
#include "rtkit/metrics.hpp"
#include "rtkit/runtime_activity.hpp"
#include "rtkit/runtime_config.hpp"
#include "rtkit/task.hpp"

namespace rtkit {

namespace detail {
class runtime_core;
}

/// What a runtime is made of, for diagnostics.
struct runtime_description {
    std::string flavor;
    int workers = 1;
    std::string clock;                  ///< "monotonic" or "virtual"
    std::string reactor, timer, lanes;  ///< plugin name and file of each
};

/// What runtime::shutdown_timeout() did with the tasks alive when it began
/// (block_on roots of other threads included).
struct shutdown_report {
    std::size_t finished = 0;   ///< ended on their own within the bound
    std::size_t cancelled = 0;  ///< still alive at the bound: cancelled and unwound
    /// Blocking calls (rtkit/blocking.hpp) still running at the bound, left to
    /// end on their own threads with their results dropped.
    std::size_t blocking_left = 0;
};

/// A runtime: the kernel plus the reactor, timer driver and lane policy its
/// configuration names, loaded from their plugin files.
///
/// The current-thread flavor has one worker. Between block_on calls it runs on
/// a background thread, so spawned work keeps going; block_on borrows it, so
/// the root and every task run on the calling thread for the call's duration.
/// The background thread starts only when work outlives a block_on (or a task
/// is woken between calls): a program driven by block_on alone stays
/// single-threaded. If a plugin throws under the background thread (a
/// reactor's poll failing), the thread reports it on stderr and stops; the
/// work then runs during block_on calls, which see such an error themselves.
/// Destroying the runtime cancels the tasks still alive, lets them unwind,
/// and joins the background thread. With a reactor bound to one thread
/// (uring's `single_issuer`) the first thread that drives the runtime is its
/// home: tasks run only inside block_on there, block_on on another thread
/// throws std::logic_error, and a shutdown (or shutdown_timeout, which then
/// waits for nothing) on another thread while home is not in block_on leaks
/// the live tasks (reported as a diagnostic) instead of unwinding them.
class runtime {
  public:
    /// Loads the plugins and creates the worker. Throws plugin_error
    /// when a plugin cannot be loaded, std::invalid_argument for a bad flavor
    /// (or a multi_thread flavor over a reactor bound to one thread).
    explicit runtime(const runtime_config& config = {});
    ~runtime();
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;

    /// Runs `root` to completion on this thread and returns its value, or
    /// rethrows what it threw (after the worker has been handed back). May be
    /// nested to any depth, from inside a root or a task, also through other
    /// runtimes' block_on (A, then B, then A again): a nested root drives the
    /// worker that this thread already drives, so it does all a root does
    /// (spawn and join, timers, I/O). A plugin that throws under the drive
    /// (a failing reactor poll) ends the call with that exception, the root
    /// retired and the worker handed back. The root's frame (its
    /// parameters) is destroyed inside the call, with the root's context; a
    /// destructor that throws there is rethrown too, unless the root failed first
    /// (GCC then skips freeing the frame: a throwing destructor costs its memory).
    template <class T>
    T block_on(task<T> root) {
        auto frame = root.release();
        detail::promise<T>& p = frame.promise();
        p.resume_point = frame;
        p.state.store(detail::task_state::one_ref | detail::task_state::spawned,
                      std::memory_order_relaxed);
        std::optional<outcome<T>> result;
        const std::exception_ptr destructor_error = drive(
            &p,
            [](detail::task_header& t, void* into) noexcept {
                static_cast<std::optional<outcome<T>>*>(into)->emplace(
                    static_cast<detail::promise<T>&>(t).take_result());
            },
            &result);
        if (destructor_error && result->is_ok()) std::rethrow_exception(destructor_error);
        if constexpr (std::is_void_v<T>)
            std::move(*result).value();
        else
            return std::move(*result).value();
    }

    /// Stops the runtime: cancels live tasks and joins the background thread.
    /// Blocking calls (rtkit/blocking.hpp) not yet started are dropped; those
    /// running are not waited for (a thread cannot be interrupted, and one
    /// may never return): they end on their own threads, their results
    /// dropped, and a diagnostic counts them. To give them time, call
    /// shutdown_timeout first. Idempotent; the destructor calls it.
    void shutdown();

    /// Graceful shutdown: no new block_on starts; the live tasks get up to
    /// `bound` (on the runtime's clock) to finish on their own, driven on this
    /// thread when it can borrow the worker, then the rest are cancelled and
    /// unwound as by shutdown(). Blocking calls still running get what is
    /// left of `bound` (in real time) to end; the report counts those that did
    /// not. Called from one of this runtime's own tasks, nothing can finish
    /// while it waits, so it cancels at once; from a multi_thread block_on
    /// root it waits for the rest, not for that root. After a shutdown it does
    /// nothing and reports zeros.
    shutdown_report shutdown_timeout(duration bound);

    /// True when no task is alive: none in a worker's store, none spawned
    /// from outside the workers and still queued, no running block_on root.
    bool is_quiescent() const;

    /// How long the worker, with nothing to run, polls the reactor before it
    /// sleeps in it: runtime_config::poll_before_park at first (which says
    /// when it polls and what it buys). An application that knows what a wake
    /// is worth (a server that sees how many requests a read brings) tunes
    /// it while it runs. Any thread may call these at any time, a task of the
    /// runtime too (cx::set_poll_before_park): the worker reads the time each
    /// time it runs out of work, so a new one holds from its next poll on (a
    /// poll under way keeps the time it began with; a sleeping worker is not
    /// woken). Taken within 0..1 s. The multi-thread flavor keeps and reports
    /// the time, but its workers do not poll: they sleep at once.
    void set_poll_before_park(std::chrono::microseconds d) noexcept;
    std::chrono::microseconds poll_before_park() const noexcept;

    /// The flavor and the plugins in use.
    const runtime_description& description() const noexcept;

    /// A snapshot of what the runtime counted since it started (any thread,
    /// also while it runs and after shutdown). Counting is always on and
    /// costs no locked instruction on the task paths.
    runtime_metrics metrics() const;

    /// What each worker is doing now (rtkit/runtime_activity.hpp): for a
    /// watchdog on another thread, which may keep it after the runtime is
    /// destroyed, or read it while the destructor is stuck joining a worker.
    std::shared_ptr<const runtime_activity> activity() const noexcept;

  private:
    /// Drives `root` to completion, moves its outcome into `into` with `take`,
    /// then destroys its frame; returns what a destructor there threw, if any.
    std::exception_ptr drive(detail::task_header* root, detail::take_root_result take, void* into);
    std::unique_ptr<detail::runtime_core> core_;
};

}  // namespace rtkit
