#pragma once
// rtkit::script::object: a value that lives by reference (task handles,
// outcomes, channels, semaphores, sockets), and task_outcome, the one kind the
// language itself defines. The interpreter defines the others, on the kernel.
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/script/value.hpp"

namespace rtkit::script {

/// A value shared by reference: every copy of the value is the same object.
/// Objects used by several tasks at once synchronise themselves.
class object {
  public:
    virtual ~object() = default;

    /// "a channel", "a task", ... for messages.
    virtual std::string_view type_name() const noexcept = 0;
    /// What print shows, e.g. "channel(4)".
    virtual std::string display() const = 0;
    /// The fields `.name` can read, for messages.
    virtual std::vector<std::string_view> field_names() const { return {}; }
    /// The value of `.name`; throws script_error (runtime) at `where`, e.g. for
    /// the value of an outcome that is not ok. Called only with a name that
    /// field_names() lists.
    virtual value field(std::string_view name, source_pos where) const;
    /// Drops the values this object holds, so that references that form a
    /// cycle (a channel that carries itself) are freed once the script ended.
    virtual void release_values() noexcept {}
};

/// How a task ended, as `join` gives it: ok with the value its body returned
/// (`none` when it returned none), error (it ran `fail MESSAGE`), cancelled
/// (with the reason) or panicked (a runtime error; the message says which).
/// Fields: .status ("ok", "error", "cancelled", "panicked"), .ok (a boolean),
/// .value (only when ok) and .message ("" when ok). Immutable.
class task_outcome final : public object {
  public:
    /// Ordered by severity, as rtkit::outcome's states are.
    enum class status { ok, error, cancelled, panicked };

    static std::shared_ptr<task_outcome> ok(value result);
    /// error or panicked, with what the task threw (to re-raise it in a joiner
    /// that does not look at the outcome).
    static std::shared_ptr<task_outcome> failed(status kind, std::string message,
                                                std::exception_ptr failure);
    static std::shared_ptr<task_outcome> cancelled(std::string reason);

    status state() const noexcept { return status_; }
    bool is_failure() const noexcept {
        return status_ == status::error || status_ == status::panicked;
    }
    const std::string& message() const noexcept { return message_; }
    /// What the task threw, for error and panicked; null otherwise.
    const std::exception_ptr& failure() const noexcept { return failure_; }

    std::string_view type_name() const noexcept override { return "an outcome"; }
    std::string display() const override;
    std::vector<std::string_view> field_names() const override;
    value field(std::string_view name, source_pos where) const override;
    void release_values() noexcept override { result_ = std::monostate{}; }

    /// ok with `result`.
    explicit task_outcome(value result) : status_(status::ok), result_(std::move(result)) {}
    /// Any other state (its value is none).
    task_outcome(status s, std::string message, std::exception_ptr failure)
        : status_(s), message_(std::move(message)), failure_(std::move(failure)) {}

  private:
    status status_;
    value result_;
    std::string message_;
    std::exception_ptr failure_;
};

/// "ok", "error", "cancelled" or "panicked".
std::string_view status_name(task_outcome::status s) noexcept;

}  // namespace rtkit::script
