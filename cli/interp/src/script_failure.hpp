#pragma once
// How a failed script task is carried: who it was and where it failed.
#include <exception>
#include <memory>
#include <string>

#include "rtkit/script/script_error.hpp"

namespace rtkit::interp {

/// A script task, for messages: its name, where it was spawned and by whom.
/// The root (the script's top level) has an empty name and no parent.
struct task_identity {
    std::string name;
    script::source_pos spawned_at;
    std::shared_ptr<const task_identity> parent;
};

/// Thrown out of a script task that failed, through every task that passes
/// the failure on (a `join` that does not look at the outcome, the end of a
/// scope), until the root reports it, or a scope that cannot pass it on does.
class script_failure : public std::exception {
  public:
    /// `deliberate`: the task ran `fail` (its outcome is error, not panicked).
    script_failure(script::script_error error, bool deliberate,
                   std::shared_ptr<const task_identity> task)
        : error_(std::move(error)), deliberate_(deliberate), task_(std::move(task)) {}

    const char* what() const noexcept override { return error_.what(); }
    const script::script_error& error() const noexcept { return error_; }
    bool deliberate() const noexcept { return deliberate_; }
    const std::shared_ptr<const task_identity>& task() const noexcept { return task_; }
    /// True when it comes from a task nobody joined, passed on by the end of
    /// the scope that spawned it.
    bool never_joined() const noexcept { return never_joined_; }
    /// The same failure, passed on because nobody joined its task.
    script_failure as_never_joined() const {
        script_failure copy = *this;
        copy.never_joined_ = true;
        return copy;
    }

  private:
    script::script_error error_;
    bool deliberate_;
    std::shared_ptr<const task_identity> task_;
    bool never_joined_ = false;
};

/// `failure` marked as passed on because nobody joined its task, when it is
/// a script_failure; else `failure` itself.
std::exception_ptr never_joined(const std::exception_ptr& failure);

/// The diagnostic (see script::format_diagnostic), followed by a note that
/// names the task when it is not the root, at its spawn (and says when
/// nobody joined it):
///   FILE:LINE:COLUMN: note: in task 'worker', spawned here
///     spawn worker {
///     ^
std::string format_failure(const script_failure& failure);

}  // namespace rtkit::interp
