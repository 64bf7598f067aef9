#pragma once
// rtkit::interp::interpreter: runs a parsed script on an rtkit runtime.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <rtkit/runtime.hpp>
#include <rtkit/task.hpp>
#include <rtkit/time.hpp>

#include "rtkit/script/ast.hpp"

namespace rtkit::interp {

/// A script stops with an error after this many steps (statements and loop
/// rounds, all tasks together) unless told otherwise: enough for seconds of
/// work, and an end for a loop that never waits.
inline constexpr std::uint64_t default_max_steps = 100'000'000;

/// A spawn past this many live tasks stops the script with an error unless
/// told otherwise: far more than real scripts hold (each live task costs a
/// few KiB), and an end for a spawn that recurses for ever, long before
/// memory runs out.
inline constexpr std::uint64_t default_max_tasks = 100'000;

/// How often the deadlock watch looks, unless told otherwise.
inline constexpr rtkit::duration default_deadlock_watch_period = std::chrono::milliseconds(100);

struct interpreter_options {
    /// The step budget; 0 means no limit.
    std::uint64_t max_steps = default_max_steps;
    /// The limit on live tasks (spawned and not yet ended, race blocks
    /// included); 0 means none. A spawn past it reports the error at the
    /// spawn and stops the script, as the step budget does.
    std::uint64_t max_tasks = default_max_tasks;
    /// The time limit, on the runtime's clock from the start of run(); zero
    /// means none. A script still running then is stopped with an error at
    /// the statement that runs or the statements that wait (a `sleep`, an
    /// `accept`...), whatever they wait for, and every task is cancelled. A
    /// task that does neither for ten deadlock watch periods (a long builtin)
    /// is named at the statement it runs.
    rtkit::duration max_time{0};
    /// How often the deadlock watch looks whether the script is stuck: every
    /// task of it waits for another one, and the runtime has nothing to run:
    /// no task queued or handed in, none alive but those, no timer armed but
    /// the interpreter's own. It reports a deadlock at the second look in a
    /// row that finds so with no task polled in between (the runtime's state
    /// is read worker by worker, not at one instant): two to three periods
    /// after the tasks got stuck. The runtime given to run() must run nothing
    /// else while the script waits, or no deadlock is reported. Shorter finds a deadlock sooner,
    /// and costs a wake-up per period. Past the time limit, the watch looks
    /// ten times per period for the tasks to report (see max_time). Must be
    /// positive (the constructor throws std::invalid_argument otherwise).
    rtkit::duration deadlock_watch_period = default_deadlock_watch_period;
    /// Called once when the script is stopped (a limit or a deadlock, once
    /// its error is printed; or stop()), on the thread that stops it, before
    /// its tasks are cancelled. Must not throw.
    std::function<void()> on_stop;
};

class engine;

/// Runs a script as real runtime work: each `spawn` (and each block of a
/// `race`) is one runtime task whose body is an interpreter coroutine, each
/// `sleep` a real timer, each channel, semaphore and socket operation the
/// rtkit one. A task starts with a copy of the variables its spawner could
/// see; tasks share only objects (channels, tasks, sockets...), which are
/// thread-safe.
///
/// A task that fails (a runtime error, or `fail`) ends with that outcome; a
/// `join` whose value the script keeps sees it, a `join` statement fails the
/// same way, and a task nobody joined fails the scope that spawned it at its
/// end. A failure that reaches the root, or that cannot go further, is
/// printed to `err` once: file:line:column, the line, a caret, and the task.
///
/// The interpreter and the program must outlive the block_on that runs run().
class interpreter {
  public:
    /// Throws std::invalid_argument when an option is out of range.
    interpreter(const script::program& program, std::ostream& out, std::ostream& err,
                interpreter_options options = {});
    ~interpreter();
    interpreter(const interpreter&) = delete;
    interpreter& operator=(const interpreter&) = delete;

    /// The root task: the program's top level, for `runtime.block_on`: the
    /// runtime it runs on, whose state the deadlock watch reads. Throws
    /// script_failed when the script failed (the errors were printed).
    rtkit::task<void> run(const rtkit::runtime& runtime);

    /// Cancels every task of the script; each sees it at its next wait. The
    /// script then ends with "the script was stopped: REASON" unless it
    /// failed first. Safe from any thread, also before run() or after it.
    void stop(std::string reason);

    /// The script's tasks alive now (spawned, and not yet ended).
    std::uint64_t live_tasks() const noexcept;

    /// How many errors were printed so far.
    std::size_t errors_reported() const noexcept;

  private:
    std::unique_ptr<engine> engine_;
};

}  // namespace rtkit::interp
