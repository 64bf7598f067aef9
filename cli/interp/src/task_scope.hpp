#pragma once
// rtkit::interp::task_scope: the tasks a task body or a `region` spawned.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <rtkit/cx.hpp>
#include <rtkit/sync/notify.hpp>

#include "deadlock_watch.hpp"
#include "task_record.hpp"

namespace rtkit::interp {

/// Every task body and every `region` is a scope: an rtkit region (cx::region)
/// that its spawns go into, so that the scope ends only after all of them and
/// cancelling it cancels them. It also follows their outcomes:
///
/// - close(), at the end of the scope's block, waits for every task. A task
///   that failed without anyone joining it fails the scope: the others are
///   cancelled at once and the failure is passed on (a failure never goes
///   unseen).
/// - A finished task whose outcome needs no more attention (ok, or looked
///   at) is forgotten at the next spawn, so a scope that spawns for ever (a
///   server) does not grow.
///
/// Used by the task that owns it, except child_finished(), which the
/// children call from their own tasks.
class task_scope {
  public:
    task_scope() = default;
    task_scope(const task_scope&) = delete;
    task_scope& operator=(const task_scope&) = delete;

    /// `region`: the context of the rtkit region the scope's tasks live in,
    /// once the scope's block starts.
    void open(rtkit::cx region) noexcept { region_.emplace(region); }

    /// A record for a task about to be spawned into this scope.
    std::shared_ptr<task_record> new_record(std::shared_ptr<const task_identity> identity);
    /// Starts `body` (the task of `record`) in the scope's region.
    void start(const std::shared_ptr<task_record>& record, rtkit::task<script::value> body);

    /// From a child's task, as it ends.
    void child_finished(std::shared_ptr<task_record> record) noexcept;

    /// Waits for every task. At the first failure nobody looked at, cancels
    /// the others and throws it: the region then waits for them to end. A
    /// cancellation point (then the region cancels the tasks). While it waits
    /// for a task to end (and only then: taking in the ended tasks may take
    /// long), `task` counts for `watch` as waiting at `where`.
    rtkit::task<void> close(deadlock_watch& watch, task_waits& task, script::source_pos where);

    /// The handles of failed tasks, whose runtime outcome the caller must
    /// take (`co_await std::move(h)`): a task body passes its failure on to
    /// the runtime as well, and the runtime reports a failure whose outcome
    /// nobody took. `all` (once the region ended) gives every one; otherwise
    /// only those already finished, whose await neither waits nor throws.
    std::vector<rtkit::join_handle<script::value>> failed_handles(bool all);

    /// After the region ended: a task that has no outcome was cancelled
    /// before it started (its body never ran); gives it that outcome.
    void finish_unstarted();

    /// The tasks whose outcome nobody looked at yet, in spawn order.
    std::vector<std::shared_ptr<task_record>> unobserved() const;

    /// After the region ended: the failures nobody looked at and close() did
    /// not pass on (the scope failed for another reason, or a second task
    /// failed). The caller reports them, since they go no further.
    std::vector<std::shared_ptr<task_record>> unreported_failures();

  private:
    /// Takes in the tasks that ended since the last call: forgets those that
    /// need no more attention; returns those that failed unseen.
    std::vector<std::shared_ptr<task_record>> collect_finished();

    std::optional<rtkit::cx> region_;
    std::map<std::uint64_t, std::shared_ptr<task_record>> children_;  ///< by spawn order
    std::uint64_t next_sequence_ = 0;
    std::size_t running_ = 0;  ///< started and not yet collected
    /// Handles of failed tasks whose runtime outcome was not taken yet.
    std::vector<rtkit::join_handle<script::value>> failed_handles_;

    std::mutex finished_lock_;
    std::vector<std::shared_ptr<task_record>> finished_;  ///< guarded; room for every child
    rtkit::sync::notify changed_;
};

}  // namespace rtkit::interp
