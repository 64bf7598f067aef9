#pragma once
// How cx::timeout runs. Included by cx.hpp.
#include <cstdint>
#include <optional>
#include <type_traits>

#include "rtkit/cx.hpp"
#include "rtkit/detail/engaged_optional.hpp"
#include "rtkit/detail/task_extras.hpp"

namespace rtkit::detail {

/// One active timeout of a task, innermost first in task_extras::timeouts.
/// Lives in the timeout awaiter. The limit counts from the call: the scope
/// takes a mark of the runtime clock when it opens (a cycle count where the
/// machine allows, cheaper than reading the clock), and its timer is armed
/// only the first time the task suspends inside the scope (see arm_timeouts),
/// which turns the mark into an instant. So an operation that completes
/// without waiting never reads the clock nor touches the timer driver.
struct timeout_state {
    timeout_state* outer = nullptr;
    task_header* task = nullptr;  ///< the task whose scope this is
    duration limit{};             ///< how long after the opening the deadline is
    /// The runtime clock's mark of when the scope opened (push_timeout).
    std::uint64_t opened_mark = 0;
    /// Shared with the armed timer's waker (null until armed).
    struct armed_timer* timer = nullptr;
    timer_ticket ticket;
};

/// Opens a timeout scope on the current task (which it records), noting when.
void push_timeout(timeout_state& scope);
/// Closes it: disarms its timer. Returns true if the deadline fired, and clears
/// the task's timeout bit when no other open scope of the task has fired.
bool pop_timeout(timeout_state& scope) noexcept;

/// Awaitable of cx::timeout: runs `inner` inline inside a timeout scope. Not a
/// coroutine of its own, so a timeout costs no frame beyond the inner task's,
/// and an inner task that completes at once never arms a timer.
/// Yields std::optional<T> (bool for void: whether it completed in time).
/// [[nodiscard]]: a timeout that is not awaited runs nothing.
template <class T>
class [[nodiscard]] timeout_awaiter {
  public:
    using result_type = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;

    timeout_awaiter(duration limit, task<T> inner) noexcept : inner_(inner.release()) {
        scope_.limit = limit;
    }
    timeout_awaiter(const timeout_awaiter&) = delete;
    timeout_awaiter& operator=(const timeout_awaiter&) = delete;
    ~timeout_awaiter() {
        if (pushed_) pop_timeout(scope_);  // the awaiting task is being destroyed
        if (inner_) inner_.destroy();
    }

    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) {
        push_timeout(scope_);
        pushed_ = true;
        inner_.promise().set_continuation(parent);
        current_task()->resume_point = inner_;
        return inner_;
    }
    /// Not inlined: GCC copies a result it is given inline into the
    /// coroutine's frame with 16-byte loads, which the processor cannot
    /// forward from the 8-byte stores that made it (a stall on every
    /// timeout); returned from a call, it comes in registers.
    [[gnu::noinline]] result_type await_resume() {
        pushed_ = false;
        const bool fired = pop_timeout(scope_);
        if (inner_.promise().ended_ok()) [[likely]] {
            if constexpr (std::is_void_v<T>)
                return true;
            else
                return engaged_optional(inner_.promise().take_value());
        }
        return ended_otherwise(fired);
    }

  private:
    /// The inner task was cancelled, or threw.
    [[gnu::noinline]] result_type ended_otherwise(bool fired) {
        if (inner_.promise().ended_cancelled()) {
            // Our deadline, unless a real cancellation (or an outer deadline
            // still in force) also interrupts the task: then keep unwinding.
            if (fired &&
                !(current_task()->state.load(std::memory_order_acquire) & task_state::interrupted))
                return result_type{};
            inner_.promise().rethrow_if_thrown();
        }
        outcome<T> result = inner_.promise().take_result();
        if (result.is_cancelled()) throw task_cancelled(result.reason());  // never completed
        if constexpr (std::is_void_v<T>) {
            result.value();  // rethrows what the inner task threw
            return true;
        } else {
            return result_type(std::move(result).value());
        }
    }

    std::coroutine_handle<promise<T>> inner_;
    timeout_state scope_;
    bool pushed_ = false;
};

}  // namespace rtkit::detail
