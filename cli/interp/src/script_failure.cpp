#include "script_failure.hpp"

namespace rtkit::interp {

std::exception_ptr never_joined(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const script_failure& f) {
        return std::make_exception_ptr(f.as_never_joined());
    } catch (...) {
        return failure;
    }
}

std::string format_failure(const script_failure& failure) {
    std::string text = script::format_diagnostic(failure.error());
    const task_identity* task = failure.task().get();
    if (!task || !task->parent) return text;
    std::string note = "in task '" + task->name + "', spawned here";
    if (task->parent->parent) note += " by task '" + task->parent->name + "'";
    if (failure.never_joined())
        note += ", and never joined: a failure nobody joins fails the scope that spawned the task";
    return text + script::format_note(task->spawned_at, note);
}

}  // namespace rtkit::interp
