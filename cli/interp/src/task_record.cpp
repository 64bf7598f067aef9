#include "task_record.hpp"

#include "task_scope.hpp"

namespace rtkit::interp {

void task_record::attach(rtkit::join_handle<script::value> handle) {
    std::lock_guard guard(lock_);
    handle_ = std::move(handle);
}

rtkit::join_handle<script::value> task_record::take_handle() noexcept {
    std::lock_guard guard(lock_);
    return std::move(handle_);
}

std::optional<std::string> task_record::start() {
    std::lock_guard guard(lock_);
    started_ = true;
    return std::move(cancel_before_start_);
}

void task_record::finish(std::shared_ptr<script::task_outcome> outcome) noexcept {
    {
        std::lock_guard guard(lock_);
        if (outcome_) return;
        outcome_ = std::move(outcome);
    }
    // One joiner is woken; each passes the wake-up on (join()), so every
    // joiner, whenever it came, sees the outcome.
    ended_.notify_one();
    if (scope_) scope_->child_finished(shared_from_this());
}

rtkit::task<std::shared_ptr<script::task_outcome>> task_record::join() {
    std::shared_ptr<script::task_outcome> result;
    while (!(result = join_if_ended()))
        co_await ended_.notified();
    co_return result;
}

std::shared_ptr<script::task_outcome> task_record::join_if_ended() {
    std::shared_ptr<script::task_outcome> result = outcome();
    if (result) {
        ended_.notify_one();
        observed_.store(true, std::memory_order_release);
    }
    return result;
}

std::shared_ptr<script::task_outcome> task_record::outcome() const {
    std::lock_guard guard(lock_);
    return outcome_;
}

void task_record::cancel(std::string reason) {
    std::lock_guard guard(lock_);
    if (outcome_) return;
    // Before its start the runtime would end it without running its body,
    // and nothing would publish its outcome: the body ends it itself.
    if (!started_) {
        if (!cancel_before_start_) cancel_before_start_ = std::move(reason);
        return;
    }
    if (handle_.valid()) handle_.cancel(rtkit::cancel_reason{std::move(reason)});
}

script::value task_record::field(std::string_view name, script::source_pos where) const {
    if (name == "name") return identity_->name;
    if (name == "finished") return outcome() != nullptr;
    return object::field(name, where);
}

void task_record::release_values() noexcept {
    std::shared_ptr<script::task_outcome> dropped;
    std::lock_guard guard(lock_);
    dropped = std::move(outcome_);
}

}  // namespace rtkit::interp
