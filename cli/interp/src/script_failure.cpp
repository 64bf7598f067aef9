#include "script_failure.hpp"

namespace rtkit::interp {

std::string format_failure(const script_failure& failure) {
    std::string text = script::format_diagnostic(failure.error());
    const task_identity* task = failure.task().get();
    if (!task || !task->parent) return text;
    const script::source_pos& at = task->spawned_at;
    text += (at.file ? at.file->name : std::string("<script>")) + ':' + std::to_string(at.line) +
            ':' + std::to_string(at.column) + ": note: in task '" + task->name + "', spawned here";
    if (task->parent->parent) text += " by task '" + task->parent->name + "'";
    return text + '\n';
}

}  // namespace rtkit::interp
