#pragma once
// rtkit::interp::interpreter: runs a parsed script on an rtkit runtime.
#include <cstddef>
#include <ostream>

#include <rtkit/task.hpp>

#include "rtkit/interp/task_children.hpp"
#include "rtkit/script/ast.hpp"
#include "rtkit/script/environment.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::interp {

/// Each `spawn` becomes one real runtime task whose body is an interpreter
/// coroutine, each `sleep` a real timer, each `yield` a real yield. A task
/// starts with a copy of the variables its parent could see. A task ends only
/// after every task it spawned (structured concurrency): those it did not
/// join are joined when its body ends, in spawn order.
///
/// A runtime error is reported (to `err`, with file:line:column, the line and
/// a caret) by the task that hit it, which then stops; joining a failed task
/// fails the joiner without reporting again, so each error prints once and
/// the failure reaches the root.
///
/// The interpreter and the program must outlive the block_on that runs
/// run(). Output is not locked: the current-thread runtime runs one task at a
/// time. (The multi-thread flavor will need a lock around `out` and `err`.)
class interpreter {
  public:
    interpreter(const script::program& program, std::ostream& out, std::ostream& err)
        : program_(program), out_(out), err_(err) {}

    /// The root task: the program's top level, for runtime::block_on. Throws
    /// task_failed when any task of the script failed.
    rtkit::task<void> run();

    /// How many errors were reported so far.
    std::size_t errors_reported() const noexcept { return errors_; }

  private:
    rtkit::task<void> run_task(const script::block& body, script::environment env);
    rtkit::task<void> run_block(const script::block& body, script::environment& env,
                                task_children& children);
    rtkit::task<void> run_awaiting(const script::stmt& s, script::environment& env,
                                   task_children& children);
    void run_immediate(const script::stmt& s, script::environment& env, task_children& children);
    rtkit::task<bool> join_child(child_task child);
    void report(const script::script_error& error);

    const script::program& program_;
    std::ostream& out_;
    std::ostream& err_;
    std::size_t errors_ = 0;
};

}  // namespace rtkit::interp
