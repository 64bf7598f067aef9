#pragma once
// rtkit::runtime_activity: what each worker of a runtime is doing now, for a
// watchdog that must say where a runtime is stuck.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtkit {

namespace detail {
class activity_board;
}

/// What one worker is doing at the moment of a runtime_activity::snapshot().
struct worker_activity {
    enum class state : std::uint8_t {
        running,              ///< running tasks, or looking for some
        parked,               ///< waiting for work on a futex (another worker waits in the reactor)
        in_reactor,           ///< inside a call of the reactor plugin (`call` says which)
        waiting_for_reactor,  ///< waiting until another thread is out of the shared reactor
        in_timer,             ///< inside a call of the timer plugin (`call` says which)
        not_driven,           ///< current_thread: no thread drives the worker (no block_on runs)
        stopped,              ///< shut down: no thread drives the worker any more
    };
    std::size_t worker = 0;  ///< its index, from 0
    state what = state::running;
    /// The plugin's name (as in the configuration) for in_reactor,
    /// waiting_for_reactor and in_timer; empty otherwise.
    std::string plugin;
    /// The plugin call for in_reactor ("poll", "add", "watch", "remove") and
    /// in_timer ("insert", "cancel", "next_deadline", "fire"); empty otherwise.
    std::string call;
    /// How long it has been so, for the states that may last: parked,
    /// waiting_for_reactor, and a reactor poll that may block (one with a
    /// timeout). Empty for the others, which are not timed.
    std::optional<std::chrono::nanoseconds> for_how_long;
};

/// What each worker of a runtime is doing now: running tasks, parked, inside
/// which call of which plugin, waiting for the reactor, and since when.
/// `runtime::activity()` gives it as a std::shared_ptr that stays valid after
/// the runtime is gone. It is read from any thread at any moment without a
/// lock a stuck worker could hold: each worker's thread writes one word of it
/// around its plugin calls and waits, and a snapshot reads those words. A
/// snapshot is not atomic across workers, and a task's own code (a busy loop,
/// a blocking system call) shows as `running`.
class runtime_activity {
  public:
    runtime_activity(const runtime_activity&) = delete;
    runtime_activity& operator=(const runtime_activity&) = delete;

    /// One entry per worker, in worker order.
    std::vector<worker_activity> snapshot() const;
    /// One line (ending in '\n') for each worker that is not simply running
    /// tasks, such as `worker 0 has been inside the reactor plugin "epoll"
    /// (poll) for 30.2s`; empty when all are.
    std::string describe() const;

  protected:
    ~runtime_activity() = default;  ///< the shared_ptr's deleter destroys the whole

  private:
    friend class detail::activity_board;  ///< the only kind there is
    runtime_activity() = default;
};

}  // namespace rtkit
