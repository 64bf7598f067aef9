#pragma once
// rtkit::interp::engine: runs one script on the runtime whose task polls it.
// Its member functions are spread over the files of this folder by concept:
// engine.cpp (the run, output, errors, the step budget, the deadlock watch),
// tasks.cpp (task bodies, scopes, spawn, join_all, race), statements.cpp,
// expressions.cpp.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <rtkit/cx.hpp>
#include <rtkit/task.hpp>
#include <rtkit/time.hpp>

#include "deadlock_watch.hpp"
#include "rtkit/interp/interpreter.hpp"
#include "rtkit/script/ast.hpp"
#include "rtkit/script/environment.hpp"
#include "rtkit/script/object.hpp"
#include "script_failure.hpp"
#include "task_record.hpp"

namespace rtkit::interp {

class task_scope;

/// How a block ended: it ran to its end, or break, continue or return left it.
enum class flow { next, break_loop, continue_loop, returned };

/// One script task while it runs: who it is, and its open scopes (its body's,
/// then one per `region` it is inside; spawns go to the innermost).
struct task_state : task_waits {
    rtkit::cx context;  ///< the task's, for its cancellation checks
    std::vector<task_scope*> scopes;
    unsigned call_depth = 0;
    unsigned since_pause = 0;  ///< statements and rounds since the last pause
};

/// The variables of a task's body or of a function call, and what `return` gave.
struct frame {
    task_state& task;
    script::environment env;
    script::value returned;
};

/// One live task of the script, from its spawn to the end of its frame (a
/// parameter of the task's body, so it ends also for a task the runtime
/// cancels before it starts). Empty for the top level.
class live_task {
  public:
    live_task() noexcept = default;
    explicit live_task(std::atomic<std::uint64_t>& count) noexcept : count_(&count) {}
    live_task(live_task&& other) noexcept : count_(std::exchange(other.count_, nullptr)) {}
    live_task& operator=(live_task&&) = delete;
    ~live_task() {
        if (count_) count_->fetch_sub(1, std::memory_order_relaxed);
    }

  private:
    std::atomic<std::uint64_t>* count_ = nullptr;
};

class engine {
  public:
    /// Function calls nest at most this deep: recursion has an end, and so
    /// has the native stack a failure unwinds through, one inline coroutine
    /// after the other (see pause_period), in sanitizer builds too.
    static constexpr unsigned max_call_depth = 200;

    /// A task yields after this many statements and loop rounds: the other
    /// tasks get a turn at the script's own pace, the same on every build.
    /// Each block, statement and call is a coroutine awaited inline; the
    /// kernel also yields a task every 128 such coroutines that end at once
    /// (its cooperative budget), which keeps the native stack short where the
    /// compiler does not make the transfer back to the awaiter a tail call.
    static constexpr unsigned pause_period = 64;
    /// Steps (of all tasks together) between two looks at the clock for the
    /// time limit.
    static constexpr std::uint64_t clock_check_period = 256;
    /// True (and counting again from zero) once `task` is due to pause.
    static bool pause_due(task_state& task) noexcept {
        if (++task.since_pause < pause_period) return false;
        task.since_pause = 0;
        return true;
    }

    engine(const script::program& program, std::ostream& out, std::ostream& err,
           interpreter_options options)
        : program_(program), out_(out), err_(err), options_(options) {}

    /// The root task: the top level, on `runtime`. Throws script_failed when
    /// the script failed.
    rtkit::task<void> run(const rtkit::runtime& runtime);
    std::size_t errors_reported() const noexcept { return errors_.load(); }
    std::uint64_t live_tasks() const noexcept {
        return live_tasks_.load(std::memory_order_relaxed);
    }

    // ---- engine.cpp ----
    /// Cancels the whole script (its top-level task, and so every task).
    void stop(std::string reason);
    void print_line(const std::string& line);
    /// Prints a failure (what a task threw) that reached a place where it
    /// goes no further.
    void report(const std::exception_ptr& failure);
    /// Prints an error's text (ending with a newline) and counts it.
    void report_text(const std::string& text);
    /// Counts one step of `task`, and is a cancellation point (so a task that
    /// never waits can still be cancelled). The step past the budget reports
    /// the error (at `where`) and stops the script; it and every later one
    /// throw task_cancelled, so the tasks unwind without more messages.
    /// Once the time limit passed, the step calls out_of_time: the watch
    /// task says so (watch_time_limit), and every clock_check_period steps
    /// the step looks at the clock itself, for when the watch waits its turn
    /// behind very many ready tasks. `where` is a
    /// node's position in the program: the task remembers it as where it runs.
    void step(task_state& task, const script::source_pos& where);
    /// Reports, unless reported already, that the time limit passed while
    /// `task` ran the statement at `where`; stops the script and throws
    /// task_cancelled.
    [[noreturn]] void out_of_time(const task_state& task, script::source_pos where);
    /// Counts a task `task` spawns at `where`. Past the limit on live tasks,
    /// reports the error (once) and stops the script, and throws task_cancelled.
    live_task admit_task(const task_state& task, script::source_pos where);
    /// When the time limit passes, set by run() before any task starts;
    /// instant::max() when there is none.
    rtkit::instant time_limit() const noexcept { return time_limit_; }
    /// Remembers an object that may hold values, to break reference cycles
    /// between objects once the script ended.
    void track(const std::shared_ptr<script::object>& o);
    std::chrono::nanoseconds elapsed() const;
    /// While the script runs: stops it with an error when it is stuck at two
    /// looks in a row: deadlocks_ finds every task waiting for another one,
    /// the runtime is idle (runtime_idle), and it polled no task between the
    /// looks but this watch.
    rtkit::task<void> watch_for_deadlock();
    /// True when `runtime` (a snapshot of the script's runtime) has no task
    /// to run, none handed in, no timer armed but the time limit's, and no
    /// task alive but the watches and the script's `waiting_tasks`: nothing
    /// can end a wait of the script. (A wait for a socket is no wait for
    /// another task: deadlocks_ does not count it.)
    bool runtime_idle(const rtkit::runtime_metrics& runtime, std::size_t waiting_tasks) const;
    /// While the script runs: stops it at its time limit, with an error at
    /// the statements where tasks wait, or at the next statement that runs.
    rtkit::task<void> watch_time_limit();
    /// What the watch knows of the script's tasks.
    deadlock_watch& deadlocks() noexcept { return deadlocks_; }

    // ---- tasks.cpp ----
    /// A task's body (the root's, a spawned block's, a spawned function's, a
    /// race block's): a scope around `body`; publishes the outcome to
    /// `record` (null for the root) and gives the value `return` gave.
    rtkit::task<script::value> run_task(std::shared_ptr<const task_identity> identity,
                                        const script::block& body, script::environment env,
                                        std::shared_ptr<task_record> record, live_task alive);
    /// `body` as a scope of the current task (its body, or a region).
    rtkit::task<flow> run_scope(frame& f, const script::block& body);
    rtkit::task<flow> run_scope_body(rtkit::cx region, frame& f, const script::block& body,
                                     task_scope& scope);
    rtkit::task<script::value> spawn(frame& f, const script::spawn_expr& s,
                                     script::source_pos where);
    rtkit::task<script::value> join_all(frame& f, const script::builtin_expr& b,
                                        script::source_pos where);
    rtkit::task<script::value> race(frame& f, const script::race_expr& r, script::source_pos where);

    // ---- statements.cpp ----
    rtkit::task<flow> run_block(frame& f, const script::block& body);
    rtkit::task<flow> run_statement(frame& f, const script::stmt& s);
    /// A statement with stmt::immediate: no coroutine frame of its own.
    flow run_immediate(frame& f, const script::stmt& s);
    /// The part of a simple statement after its operands were evaluated.
    flow finish_simple(frame& f, const script::stmt& s, std::vector<script::value> operands);

    // ---- expressions.cpp ----
    rtkit::task<script::value> evaluate(frame& f, const script::expr& e);
    rtkit::task<script::value> call(frame& f, const script::call_expr& c, script::source_pos where);
    rtkit::task<script::value> builtin(frame& f, const script::builtin_expr& b,
                                       script::source_pos where);

  private:
    const script::program& program_;
    const rtkit::runtime* runtime_ = nullptr;  ///< set by run()
    std::ostream& out_;
    std::ostream& err_;
    interpreter_options options_;
    rtkit::instant start_{};
    rtkit::instant time_limit_ = rtkit::instant::max();
    std::atomic<bool> time_up_{false};  ///< the time limit passed
    std::atomic<bool> time_limit_reported_{false};
    std::mutex output_lock_;  ///< tasks may print from several threads
    std::atomic<std::size_t> errors_{0};
    std::atomic<std::uint64_t> steps_{0};
    std::atomic<std::uint64_t> live_tasks_{0};  ///< spawned, frame not yet ended
    std::atomic<bool> task_limit_reported_{false};
    deadlock_watch deadlocks_;
    std::mutex top_lock_;
    std::shared_ptr<task_record> top_;    ///< the top-level task, guarded by top_lock_
    std::optional<std::string> stopped_;  ///< a stop() before run(), guarded by top_lock_
    bool stop_announced_ = false;         ///< on_stop was called; guarded by top_lock_
    bool ended_ = false;                  ///< run() has ended; guarded by top_lock_
    std::mutex tracked_lock_;
    std::vector<std::weak_ptr<script::object>> tracked_;
};

}  // namespace rtkit::interp
