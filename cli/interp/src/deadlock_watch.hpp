#pragma once
// rtkit::interp::deadlock_watch: notices when every task of a script waits
// for another one, so that none can go on and the script would hang.
#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "script_failure.hpp"

namespace rtkit::interp {

/// What the watch knows of one task: set by that task, read by the watch.
struct task_waits {
    std::shared_ptr<const task_identity> identity;
    /// Where the task waits (for anything), or line 0; guarded by the watch.
    script::source_pos waiting_at;
    /// Open `timeout` blocks: a wait inside one ends on its own (its timer
    /// fires), so it does not count. Only the task itself touches this.
    unsigned timeouts = 0;
    /// The statement the task started last (a position inside the program,
    /// which outlives the task), or null: written by the task, read by the watch.
    std::atomic<const script::source_pos*> running_at{nullptr};
    /// Where the watch keeps the task in its list; guarded by the watch.
    std::size_t slot = 0;
};

/// Tasks, each with the statement where it waits (or runs), in script order
/// and by name at one place (what deadlock_watch gives).
using task_places =
    std::vector<std::pair<std::shared_ptr<const task_identity>, script::source_pos>>;

/// Counts the tasks of a script and those that wait for another task: on a
/// channel (send, recv), a join, a semaphore, a race or the end of the tasks
/// of a scope. Only tasks of the script can end such a wait. When every task
/// waits so while the runtime has nothing to run (engine::runtime_idle), the
/// script is stuck. (A wait for a timer or a socket is not counted:
/// something outside the tasks can end it.) Thread-safe.
class deadlock_watch {
  public:
    /// Between a task's first and last statement.
    class task_alive {
      public:
        task_alive(deadlock_watch& watch, task_waits& task);
        ~task_alive();
        task_alive(const task_alive&) = delete;
        task_alive& operator=(const task_alive&) = delete;

      private:
        deadlock_watch& watch_;
        task_waits& task_;
    };

    /// What can end a wait.
    enum class ended_by {
        tasks,          ///< only another task of the script (a channel, a join...)
        time_or_socket  ///< also a timer or a socket (sleep, accept, read...)
    };

    /// While `task` waits at `where`; counted as a wait for another task
    /// when only tasks can end it and it is outside every `timeout`.
    class waiting {
      public:
        waiting(deadlock_watch& watch, task_waits& task, script::source_pos where,
                ended_by end = ended_by::tasks);
        ~waiting();
        waiting(const waiting&) = delete;
        waiting& operator=(const waiting&) = delete;

      private:
        deadlock_watch& watch_;
        task_waits& task_;
        bool counted_;
    };

    /// When every task waits for another: each one with where it waits.
    /// Empty otherwise (or when there is no task).
    task_places stuck() const;

    /// Every task that waits now, whatever for, with where it waits.
    task_places waiting_tasks() const;

    /// Every task that does not wait now, with the statement it started
    /// last (a task that has started none is left out).
    task_places running_tasks() const;

  private:
    mutable std::mutex lock_;
    std::vector<task_waits*> tasks_;  ///< guarded by lock_
    std::size_t waiting_ = 0;         ///< guarded by lock_
};

}  // namespace rtkit::interp
