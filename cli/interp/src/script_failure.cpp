#include "script_failure.hpp"

namespace rtkit::interp {
std::string format_failure(const script_failure& failure) {
    std::string text = script::format_diagnostic(failure.error());
    const task_identity* task = failure.task().get();
    if (!task || !task->parent) return text;
    std::string note = "in task '" + task->name + "', spawned here";
    if (task->parent->parent) note += " by task '" + task->parent->name + "'";
    return text + script::format_note(task->spawned_at, note);
}

}  // namespace rtkit::interp
