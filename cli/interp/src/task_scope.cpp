#include "task_scope.hpp"

namespace rtkit::interp {

std::shared_ptr<task_record> task_scope::new_record(std::shared_ptr<const task_identity> identity) {
    collect_finished();  // forget what ended well, before growing
    return std::make_shared<task_record>(std::move(identity), this, next_sequence_++);
}

void task_scope::start(const std::shared_ptr<task_record>& record,
                       rtkit::task<script::value> body) {
    {
        // Room for this child's entry now, so that child_finished never allocates.
        std::lock_guard guard(finished_lock_);
        if (finished_.capacity() < running_ + 1) finished_.reserve(2 * (running_ + 1));
    }
    children_.emplace(record->sequence(), record);
    try {
        // Named after the script's task, at its spawn's line, for traces.
        const task_identity& who = *record->identity();
        const script::source_pos at = who.spawned_at;
        record->attach(region_->spawn(
            rtkit::task_name{who.name, at.file ? std::string_view(at.file->name) : "", at.line},
            std::move(body)));
    } catch (...) {
        children_.erase(record->sequence());
        throw;
    }
    ++running_;
}

void task_scope::child_finished(std::shared_ptr<task_record> record) noexcept {
    {
        std::lock_guard guard(finished_lock_);
        finished_.push_back(std::move(record));  // reserved in start()
    }
    changed_.notify_one();
}

std::vector<std::shared_ptr<task_record>> task_scope::collect_finished() {
    std::vector<std::shared_ptr<task_record>> ended;
    {
        // Moved out, keeping finished_'s room for the children still running.
        std::lock_guard guard(finished_lock_);
        ended.assign(std::make_move_iterator(finished_.begin()),
                     std::make_move_iterator(finished_.end()));
        finished_.clear();
    }
    std::vector<std::shared_ptr<task_record>> failed_unseen;
    for (std::shared_ptr<task_record>& record : ended) {
        --running_;
        const auto outcome = record->outcome();
        // Dropped unless failed: the region waits for the task's end.
        rtkit::join_handle<script::value> handle = record->take_handle();
        if (outcome->is_failure() && handle.valid()) failed_handles_.push_back(std::move(handle));
        if (outcome->is_failure() && !record->observed())
            failed_unseen.push_back(std::move(record));
        else
            children_.erase(record->sequence());
    }
    return failed_unseen;
}

rtkit::task<void> task_scope::close(deadlock_watch& watch, task_waits& task,
                                    script::source_pos where) {
    while (true) {
        for (std::shared_ptr<task_record>& failed : collect_finished()) {
            if (!failed->claim_observation()) continue;
            region_->cancel_region(
                rtkit::cancel_reason{"task '" + failed->identity()->name + "' failed"});
            std::rethrow_exception(never_joined(failed->outcome()->failure()));
        }
        if (running_ == 0) co_return;
        const deadlock_watch::waiting waiting(watch, task, where);
        co_await changed_.notified();
    }
}

std::vector<rtkit::join_handle<script::value>> task_scope::failed_handles(bool all) {
    std::vector<rtkit::join_handle<script::value>> given, kept;
    for (rtkit::join_handle<script::value>& handle : failed_handles_)
        (all || handle.is_finished() ? given : kept).push_back(std::move(handle));
    failed_handles_ = std::move(kept);
    return given;
}

void task_scope::finish_unstarted() {
    for (const auto& [sequence, record] : children_)
        if (!record->outcome())
            record->finish(script::task_outcome::cancelled("cancelled before it started"));
}

std::vector<std::shared_ptr<task_record>> task_scope::unobserved() const {
    std::vector<std::shared_ptr<task_record>> found;
    for (const auto& [sequence, record] : children_)
        if (!record->observed()) found.push_back(record);
    return found;
}

std::vector<std::shared_ptr<task_record>> task_scope::unreported_failures() {
    collect_finished();
    std::vector<std::shared_ptr<task_record>> failures;
    for (const auto& [sequence, record] : children_) {
        const auto outcome = record->outcome();
        if (outcome && outcome->is_failure() && record->claim_observation())
            failures.push_back(record);
    }
    return failures;
}

}  // namespace rtkit::interp
