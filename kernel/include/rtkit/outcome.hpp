#pragma once
// rtkit::outcome<T>: how a task ended.
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace rtkit {

namespace detail {
template <class T>
class outcome_slot;
}

/// Why a task was cancelled.
struct cancel_reason {
    std::string message = "cancelled";
};

/// Thrown at a kernel await point of a task whose cancellation was requested,
/// so it unwinds through its own cleanup; the task then ends `cancelled`.
/// Catching it and awaiting again just throws it again.
class task_cancelled : public std::exception {
  public:
    explicit task_cancelled(cancel_reason reason) : reason_(std::move(reason)) {}
    const char* what() const noexcept override { return reason_.message.c_str(); }
    const cancel_reason& reason() const noexcept { return reason_; }

  private:
    cancel_reason reason_;
};

/// An error a task returned on purpose (as opposed to throwing).
struct task_error {
    std::error_code code;
    std::string message;
};

/// Thrown by outcome::value() when the outcome holds no value.
class bad_outcome_access : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

/// The end of a task: ok (a value), err (a task_error), cancelled (a reason) or
/// panicked (the exception it threw). The states are ordered by severity,
/// ok < err < cancelled < panicked, so combinators can report the worst.
/// The rare states keep their details behind a pointer, so an outcome costs
/// little more than its value inside every task frame.
template <class T>
class outcome {
  public:
    enum class state { ok = 0, err = 1, cancelled = 2, panicked = 3 };

    /// A task's outcome before it ends: cancelled, "never completed" (no allocation).
    outcome() noexcept : data_(std::in_place_index<2>, nullptr) {}
    outcome(const outcome& other) : data_(copy(other.data_)) {}
    outcome(outcome&&) noexcept = default;
    outcome& operator=(const outcome& other) {
        data_ = copy(other.data_);
        return *this;
    }
    outcome& operator=(outcome&&) noexcept = default;

    static outcome ok(T value) { return outcome(std::in_place_index<0>, std::move(value)); }
    static outcome err(task_error e) {
        return outcome(std::in_place_index<1>, std::make_unique<task_error>(std::move(e)));
    }
    static outcome cancelled(cancel_reason r) {
        return outcome(std::in_place_index<2>, std::make_unique<cancel_reason>(std::move(r)));
    }
    static outcome panicked(std::exception_ptr e) { return outcome(std::in_place_index<3>, e); }

    state status() const noexcept { return static_cast<state>(data_.index()); }
    bool is_ok() const noexcept { return data_.index() == 0; }
    bool is_err() const noexcept { return data_.index() == 1; }
    bool is_cancelled() const noexcept { return data_.index() == 2; }
    bool is_panicked() const noexcept { return data_.index() == 3; }

    /// The value; rethrows a panic, throws bad_outcome_access otherwise.
    T& value() & { return check(), std::get<0>(data_); }
    T&& value() && { return check(), std::get<0>(std::move(data_)); }
    const task_error& error() const { return *std::get<1>(data_); }
    const cancel_reason& reason() const {
        static const cancel_reason never_completed{"never completed"};
        const auto& r = std::get<2>(data_);
        return r ? *r : never_completed;
    }
    std::exception_ptr exception() const { return std::get<3>(data_); }

  private:
    friend class detail::outcome_slot<T>;  // builds the outcome a task's frame kept
    using storage = std::variant<T, std::unique_ptr<task_error>, std::unique_ptr<cancel_reason>,
                                 std::exception_ptr>;
    template <std::size_t I, class... A>
    explicit outcome(std::in_place_index_t<I> i, A&&... a) : data_(i, std::forward<A>(a)...) {}
    static storage copy(const storage& from) {
        switch (from.index()) {
            case 0:
                return storage(std::in_place_index<0>, std::get<0>(from));
            case 1:
                return storage(std::in_place_index<1>,
                               std::make_unique<task_error>(*std::get<1>(from)));
            case 2:
                return storage(std::in_place_index<2>,
                               std::get<2>(from)
                                   ? std::make_unique<cancel_reason>(*std::get<2>(from))
                                   : nullptr);
            default:
                return storage(std::in_place_index<3>, std::get<3>(from));
        }
    }
    void check() const {
        if (is_panicked()) std::rethrow_exception(exception());
        if (is_err()) throw bad_outcome_access("outcome holds an error: " + error().message);
        if (is_cancelled()) throw bad_outcome_access("outcome is cancelled: " + reason().message);
    }
    storage data_;
};

/// outcome<void> holds std::monostate as its value.
template <>
class outcome<void> : public outcome<std::monostate> {
  public:
    using outcome<std::monostate>::outcome;
    outcome(outcome<std::monostate> o) : outcome<std::monostate>(std::move(o)) {}
    static outcome ok() { return outcome<std::monostate>::ok({}); }
    void value() const { (void)const_cast<outcome*>(this)->outcome<std::monostate>::value(); }
};

}  // namespace rtkit
