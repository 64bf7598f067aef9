#pragma once
// rtkit::interp::task_record: a script task as scripts hold it (its handle).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <rtkit/join_handle.hpp>
#include <rtkit/sync/notify.hpp>
#include <rtkit/task.hpp>

#include "rtkit/script/object.hpp"
#include "script_failure.hpp"

namespace rtkit::interp {

class task_scope;

/// The handle a `spawn` gives: one real runtime task, its outcome once its
/// body ended, and whether the script has looked at that outcome.
///
/// The task's body publishes its outcome itself (finish), so any number of
/// tasks holding a copy of the handle may `join` it, from any thread; the
/// rtkit join handle stays with the record for `cancel`. Thread-safe.
class task_record final : public script::object, public std::enable_shared_from_this<task_record> {
  public:
    /// `scope` (may be null) hears of the task's end; it outlives the task.
    task_record(std::shared_ptr<const task_identity> identity, task_scope* scope,
                std::uint64_t sequence) noexcept
        : identity_(std::move(identity)), scope_(scope), sequence_(sequence) {}

    const std::shared_ptr<const task_identity>& identity() const noexcept { return identity_; }
    /// Spawn order within its scope.
    std::uint64_t sequence() const noexcept { return sequence_; }

    /// Keeps the runtime's handle, for cancel().
    void attach(rtkit::join_handle<script::value> handle);
    /// Takes the runtime's handle back (dropping it lets the task's frame go
    /// once the task ended; awaiting it waits for the task's very end).
    rtkit::join_handle<script::value> take_handle() noexcept;

    /// Called by the task's body as it starts: the reason of a cancel that
    /// came before, or nullopt (then cancel() reaches the running task).
    std::optional<std::string> start();

    /// Called once as the task ends, by its body, or by whoever saw it end
    /// without running (the runtime does not start a task cancelled before
    /// its first poll): publishes the outcome, wakes the joiners and tells the
    /// scope. Later calls do nothing.
    void finish(std::shared_ptr<script::task_outcome> outcome) noexcept;

    /// Waits for the outcome and marks it looked at. A cancellation point.
    rtkit::task<std::shared_ptr<script::task_outcome>> join();
    /// The outcome, marked looked at, if the task has ended (as join() gives
    /// it); null while it runs. Not a coroutine: a join_all over thousands
    /// of ended tasks costs no coroutine frame per task.
    std::shared_ptr<script::task_outcome> join_if_ended();

    /// The outcome if the task ended, else null.
    std::shared_ptr<script::task_outcome> outcome() const;

    /// Whether the script looked at the outcome (join, join_all, race).
    bool observed() const noexcept { return observed_.load(std::memory_order_acquire); }
    /// Marks the outcome looked at; true if this call was the first to.
    bool claim_observation() noexcept {
        return !observed_.exchange(true, std::memory_order_acq_rel);
    }

    /// Asks the task to stop at its next wait or statement, with `reason`;
    /// before it started, it ends at its start; nothing once it ended.
    void cancel(std::string reason);

    std::string_view type_name() const noexcept override { return "a task"; }
    std::string display() const override { return "task " + identity_->name; }
    std::vector<std::string_view> field_names() const override { return {"name", "finished"}; }
    script::value field(std::string_view name, script::source_pos where) const override;
    void release_values() noexcept override;

  private:
    std::shared_ptr<const task_identity> identity_;
    task_scope* scope_;
    std::uint64_t sequence_;
    mutable std::mutex lock_;
    std::shared_ptr<script::task_outcome> outcome_;   ///< guarded by lock_
    rtkit::join_handle<script::value> handle_;        ///< guarded by lock_
    bool started_ = false;                            ///< guarded by lock_
    std::optional<std::string> cancel_before_start_;  ///< guarded by lock_
    rtkit::sync::notify ended_;
    std::atomic<bool> observed_{false};
};

}  // namespace rtkit::interp
