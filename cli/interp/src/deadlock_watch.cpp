#include "deadlock_watch.hpp"

#include <algorithm>

namespace rtkit::interp {

deadlock_watch::task_alive::task_alive(deadlock_watch& watch, task_waits& task)
    : watch_(watch), task_(task) {
    std::lock_guard guard(watch_.lock_);
    watch_.tasks_.push_back(&task_);
}

deadlock_watch::task_alive::~task_alive() {
    std::lock_guard guard(watch_.lock_);
    std::erase(watch_.tasks_, &task_);
}

deadlock_watch::waiting::waiting(deadlock_watch& watch, task_waits& task, script::source_pos where)
    : watch_(watch), task_(task), counted_(task.timeouts == 0) {
    if (!counted_) return;
    std::lock_guard guard(watch_.lock_);
    task_.waiting_at = where;
    ++watch_.waiting_;
}

deadlock_watch::waiting::~waiting() {
    if (!counted_) return;
    std::lock_guard guard(watch_.lock_);
    task_.waiting_at = {};
    --watch_.waiting_;
}

std::vector<std::pair<std::shared_ptr<const task_identity>, script::source_pos>>
deadlock_watch::stuck() const {
    std::vector<std::pair<std::shared_ptr<const task_identity>, script::source_pos>> found;
    std::lock_guard guard(lock_);
    if (tasks_.empty() || waiting_ != tasks_.size()) return found;
    for (const task_waits* task : tasks_)
        found.emplace_back(task->identity, task->waiting_at);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return std::pair(a.second.line, a.second.column) <
               std::pair(b.second.line, b.second.column);
    });
    return found;
}

}  // namespace rtkit::interp
