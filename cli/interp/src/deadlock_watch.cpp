#include "deadlock_watch.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

namespace rtkit::interp {
namespace {

/// In script order, and by task name at one place (the top level first).
void sort_by_position(task_places& tasks) {
    std::sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) {
        return std::tuple(a.second.line, a.second.column, a.first->parent != nullptr,
                          std::string_view(a.first->name)) <
               std::tuple(b.second.line, b.second.column, b.first->parent != nullptr,
                          std::string_view(b.first->name));
    });
}

}  // namespace

deadlock_watch::task_alive::task_alive(deadlock_watch& watch, task_waits& task)
    : watch_(watch), task_(task) {
    std::lock_guard guard(watch_.lock_);
    task_.slot = watch_.tasks_.size();
    watch_.tasks_.push_back(&task_);
}

deadlock_watch::task_alive::~task_alive() {
    // The last task takes this one's slot: leaving costs the same with any
    // number of tasks.
    std::lock_guard guard(watch_.lock_);
    task_waits* const last = watch_.tasks_.back();
    last->slot = task_.slot;
    watch_.tasks_[task_.slot] = last;
    watch_.tasks_.pop_back();
}

deadlock_watch::waiting::waiting(deadlock_watch& watch, task_waits& task, script::source_pos where,
                                 ended_by end)
    : watch_(watch), task_(task), counted_(end == ended_by::tasks && task.timeouts == 0) {
    std::lock_guard guard(watch_.lock_);
    task_.waiting_at = where;
    if (counted_) ++watch_.waiting_;
}

deadlock_watch::waiting::~waiting() {
    std::lock_guard guard(watch_.lock_);
    task_.waiting_at = {};
    if (counted_) --watch_.waiting_;
}

task_places deadlock_watch::stuck() const {
    task_places found;
    std::lock_guard guard(lock_);
    if (tasks_.empty() || waiting_ != tasks_.size()) return found;
    for (const task_waits* task : tasks_)
        found.emplace_back(task->identity, task->waiting_at);
    sort_by_position(found);
    return found;
}

task_places deadlock_watch::waiting_tasks() const {
    task_places found;
    std::lock_guard guard(lock_);
    for (const task_waits* task : tasks_)
        if (task->waiting_at.line != 0) found.emplace_back(task->identity, task->waiting_at);
    sort_by_position(found);
    return found;
}

task_places deadlock_watch::running_tasks() const {
    task_places found;
    std::lock_guard guard(lock_);
    for (const task_waits* task : tasks_)
        if (const script::source_pos* at = task->running_at.load(std::memory_order_relaxed);
            at && task->waiting_at.line == 0)
            found.emplace_back(task->identity, *at);
    sort_by_position(found);
    return found;
}

}  // namespace rtkit::interp
