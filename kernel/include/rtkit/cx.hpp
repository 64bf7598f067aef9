#pragma once
// rtkit::cx: what a running task may do (spawn, sleep, yield, read the clock,
// open regions, observe and request cancellation), and free functions that use
// the ambient one.
#include <chrono>
#include <concepts>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "rtkit/detail/handle.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/timer_await.hpp"
#include "rtkit/join_handle.hpp"
#include "rtkit/task.hpp"
#include "rtkit/task_name.hpp"
#include "rtkit/time.hpp"

namespace rtkit {

/// Thrown when a runtime operation is used where no task of a runtime runs.
class no_runtime_error : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

class cx;

namespace detail {

template <class T>
using task_value_t = typename std::remove_cvref_t<T>::promise_type::value_type;

template <class R, class F>
task<R> run_region(handle& home, region_node& parent, F body);
template <class T>
class timeout_awaiter;
template <class R, class F>
task<R> invoke_with_cx(F body);

}  // namespace detail

/// The capability context of a running task: what it may do on its runtime.
/// Cheap to copy; valid while its task runs. cx::current() gives the one of the
/// task being polled; a task spawned with a callable receives its own.
class cx {
  public:
    /// The context of the task running on this thread; throws no_runtime_error
    /// when called outside a task.
    static cx current() {
        detail::task_header* t = detail::current_task();
        if (!t)
            throw no_runtime_error("no rtkit task on this thread: call this from inside a task");
        return cx(t->home(), t, detail::spawn_region_of(*t));
    }

    /// This task's id: unique in the process (see task_id). The first call
    /// for a task allocates, so it may throw std::bad_alloc.
    task_id id() const { return task_->id(); }

    /// The region this context spawns into: the task's own, or the region
    /// scope (cx::region) it runs in.
    rtkit::region_id region_id() const noexcept { return rtkit::region_id{region_->id}; }

    /// The runtime clock (the timer driver's).
    instant now() const noexcept { return home_->now(); }

    /// Starts `t` as a task of its own in this context's region; its outcome
    /// comes back through the returned handle. The region does not close before
    /// the task ends.
    template <class T>
    join_handle<T> spawn(task<T> t) const {
        detail::promise<T>& p = prepare(t);
        home_->spawn(*region_, &p);
        return join_handle<T>(&p);
    }

    /// The same, with a name and spawn site for traces (rtkit/task_name.hpp):
    /// `cx.spawn("fetch", fetch(url))`.
    template <class T>
    join_handle<T> spawn(const task_name& name, task<T> t) const {
        detail::promise<T>& p = prepare(t);
        home_->spawn_named(*region_, &p, name);
        return join_handle<T>(&p);
    }

    /// Starts `t` as a local task: it is only ever polled on this thread, so
    /// it may use thread-affine state. While this thread holds live local
    /// tasks of the runtime as its background thread, the worker is not lent
    /// out; a local task woken while the worker runs on another thread waits
    /// until this thread drives the worker again (its next block_on). Must be
    /// called where this thread holds the worker (a task, or a block_on root
    /// that borrowed it); throws no_runtime_error otherwise.
    template <class T>
    join_handle<T> spawn_local(task<T> t) const {
        detail::promise<T>& p = prepare(t);
        try {
            home_->spawn_local(*region_, &p);
        } catch (...) {
            p.state.store(detail::task_state::one_ref | detail::task_state::spawned,
                          std::memory_order_relaxed);
            p.release();
            throw;
        }
        return join_handle<T>(&p);
    }

    /// Starts `body(cx)` as a task of its own: the callable receives the new
    /// task's context. The callable is moved into the task's frame, so a
    /// capturing lambda is safe here.
    template <class F>
    requires std::invocable<F&, cx>
    auto spawn(F body) const {
        using R = detail::task_value_t<std::invoke_result_t<F&, cx>>;
        return spawn(detail::invoke_with_cx<R>(std::move(body)));
    }

    /// A callable, with a name and spawn site for traces.
    template <class F>
    requires std::invocable<F&, cx>
    auto spawn(const task_name& name, F body) const {
        using R = detail::task_value_t<std::invoke_result_t<F&, cx>>;
        return spawn(name, detail::invoke_with_cx<R>(std::move(body)));
    }

    /// Anything else: refused with what spawn takes. (For a callable that
    /// takes nothing, it returns the handle a cx parameter would have given,
    /// so that this is the only error.)
    template <class F>
    requires(!std::invocable<F&, cx>) auto spawn(F) const {
        static_assert(!std::is_same_v<F, F>,
                      "spawn takes a task, spawn(f()), or a callable whose parameter is the new "
                      "task's rtkit::cx, spawn([](rtkit::cx) -> rtkit::task<T> { ... }): give "
                      "this callable that parameter");
        if constexpr (std::is_invocable_v<F&>)
            return join_handle<detail::task_value_t<std::invoke_result_t<F&>>>();
    }

    /// Runs `body(inner)` in a new child region and returns its value once the
    /// region has closed: every task spawned through `inner` (or cx::current()
    /// inside the body) has finished. If the body throws, the region's tasks are
    /// cancelled and drained, then the exception propagates. If a task of the
    /// region throws and nobody takes its outcome (its join handle was dropped
    /// or detached unjoined, as every handle left in the body is when the body
    /// ends), then once the body has ended the region's other tasks are
    /// cancelled, and when they have ended the region throws that task's
    /// exception (as a trio nursery does). A failure the body joins is the
    /// body's to handle; so is one whose handle the body returns or stores
    /// outside the region.
    template <class F>
    requires std::invocable<F&, cx>
    auto region(F body) const {
        using R = detail::task_value_t<std::invoke_result_t<F&, cx>>;
        return detail::run_region<R>(*home_, *region_, std::move(body));
    }

    /// Cancels every task of this context's region (and the regions below it).
    void cancel_region(cancel_reason reason = {"region cancelled"}) const {
        home_->cancel_region(*region_, std::move(reason));
    }

    /// Suspends this task for `d` (a real timer in the runtime's timer driver).
    detail::sleep_awaiter sleep(duration d) const noexcept {
        return detail::sleep_awaiter(*home_, saturating_add(now(), d));
    }
    detail::sleep_awaiter sleep_until(instant deadline) const noexcept {
        return detail::sleep_awaiter(*home_, deadline);
    }

    /// Runs `inner` inline and gives it `d` from this call to finish.
    /// `co_await` yields the value as std::optional<T>, empty when the time ran
    /// out first (the inner work was cancelled and unwound); for task<void>, a
    /// bool saying whether it completed. The call only notes the cycle
    /// counter (where the kernel keeps time by it; else it reads the clock);
    /// the timer is armed only when `inner` first suspends, with the deadline
    /// counted from the call, so it never fires early and ready work arms no
    /// timer.
    template <class T>
    detail::timeout_awaiter<T> timeout(duration d, task<T> inner) const {
        return detail::timeout_awaiter<T>(d, std::move(inner));
    }

    /// The polling time before sleeping of this task's runtime
    /// (runtime::set_poll_before_park, which says what it does): what a task
    /// serving requests sets from how much work its wakes bring.
    void set_poll_before_park(std::chrono::microseconds d) const noexcept {
        home_->set_poll_before_park(d);
    }
    std::chrono::microseconds poll_before_park() const noexcept {
        return home_->poll_before_park();
    }

    /// Lets the other ready tasks run before this one continues.
    detail::yield_awaiter yield_now() const noexcept { return {}; }

    /// True once cancellation of this task (or its region) was requested.
    bool is_cancel_requested() const noexcept {
        return task_->state.load(std::memory_order_acquire) & detail::task_state::cancel_requested;
    }
    /// Throws task_cancelled if cancellation was requested: a checkpoint for
    /// long computations that do not otherwise await.
    void checkpoint() const {
        if (task_->state.load(std::memory_order_acquire) & detail::task_state::interrupted)
            detail::throw_cancelled();
    }

  private:
    template <class R, class F>
    friend task<R> detail::run_region(detail::handle&, detail::region_node&, F);
    /// Takes the frame out of `t` and readies its header for spawning.
    template <class T>
    static detail::promise<T>& prepare(task<T>& t) noexcept {
        auto frame = t.release();
        detail::promise<T>& p = frame.promise();
        p.resume_point = frame;
        // The store's reference and the join handle's.
        p.state.store(2 * detail::task_state::one_ref | detail::task_state::spawned,
                      std::memory_order_relaxed);
        return p;
    }
    cx(detail::handle& home, detail::task_header* task, detail::region_node& region) noexcept
        : home_(&home), task_(task), region_(&region) {}
    detail::handle* home_;
    detail::task_header* task_;
    detail::region_node* region_;
};

/// A waker for the task running on this thread, for writing awaitables: take it
/// in await_suspend, store it where the event will fire it. Note that the task
/// is resumed on any wake; an awaitable re-checks its condition in
/// await_resume or is written so that only its own event wakes it.
/// Throws no_runtime_error outside a task.
inline waker current_waker() {
    detail::task_header* t = detail::current_task();
    if (!t) throw no_runtime_error("current_waker() called outside a task");
    return t->make_waker();
}

/// cx::current().spawn(t)
template <class T>
join_handle<T> spawn(task<T> t) {
    return cx::current().spawn(std::move(t));
}
/// cx::current().spawn(body)
template <class F>
requires std::invocable<F&, cx>
auto spawn(F body) {
    return cx::current().spawn(std::move(body));
}
/// cx::current().spawn(name, t)
template <class T>
join_handle<T> spawn(const task_name& name, task<T> t) {
    return cx::current().spawn(name, std::move(t));
}
/// cx::current().spawn(name, body)
template <class F>
requires std::invocable<F&, cx>
auto spawn(const task_name& name, F body) {
    return cx::current().spawn(name, std::move(body));
}
/// Anything else: refused with what spawn takes (see cx::spawn).
template <class F>
requires(!std::invocable<F&, cx>) auto spawn(F body) {
    return cx::current().spawn(std::move(body));
}
/// cx::current().sleep(d)
inline detail::sleep_awaiter sleep(duration d) {
    return cx::current().sleep(d);
}
/// cx::current().sleep_until(deadline): suspends this task until `deadline`
/// on the runtime's clock (at once if it has passed).
inline detail::sleep_awaiter sleep_until(instant deadline) {
    return cx::current().sleep_until(deadline);
}
/// cx::current().yield_now(). Throws no_runtime_error outside a task of a
/// runtime, where nothing would ever resume the caller.
inline detail::yield_awaiter yield_now() {
    if (!detail::current_task())
        throw no_runtime_error(
            "yield_now needs a task of a runtime: call it from a task or a "
            "block_on root");
    return {};
}
/// cx::current().now()
inline instant now() {
    return cx::current().now();
}
/// cx::current().timeout(d, inner)
template <class T>
auto timeout(duration d, task<T> inner) {
    return cx::current().timeout(d, std::move(inner));
}

}  // namespace rtkit

#include "rtkit/detail/region_scope.hpp"
#include "rtkit/detail/timeout_scope.hpp"
