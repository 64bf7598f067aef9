#pragma once
// How cx::region and cx::spawn(callable) run. Included by cx.hpp.
#include <exception>
#include <optional>

#include "rtkit/cx.hpp"
#include "rtkit/detail/task_extras.hpp"

namespace rtkit::detail {

/// Waits until a closing region is empty. Not a cancellation point: a region
/// must drain. If the waiting task is cancelled meanwhile, the cancellation is
/// passed on to the region's tasks, and the wait goes on. So is the first
/// failure of a task nobody else holds (into `child_failure`, if no failure
/// was there yet): the region's other tasks are cancelled.
class region_drain_awaiter : leaf_check {
  public:
    region_drain_awaiter(handle& home, region_node& node,
                         std::exception_ptr& child_failure) noexcept
        : leaf_check{&leaf_ready}, home_(home), node_(node), child_failure_(child_failure) {}
    bool await_ready() noexcept { return node_.close(); }
    bool await_suspend(std::coroutine_handle<>) {
        task_header* self = current_task();
        if (!node_.set_closer(self->make_waker())) return false;
        self->leaf = this;
        return true;
    }
    void await_resume() const noexcept {}

  private:
    static bool leaf_ready(leaf_check& self) noexcept {
        auto* me = static_cast<region_drain_awaiter*>(&self);
        if (me->node_.is_drained()) return true;
        if (!me->child_failure_) {
            me->child_failure_ = me->node_.take_unhandled_failure();
            if (me->child_failure_) me->cancel_tasks("a task of the region failed");
        }
        if (cancel_pending()) me->cancel_tasks("owner cancelled");
        return false;
    }
    void cancel_tasks(const char* why) noexcept {
        if (passed_on_) return;
        passed_on_ = true;
        try {
            home_.cancel_region(node_, cancel_reason{why});
        } catch (...) {
            // Out of memory while cancelling: the region still drains on its own.
        }
    }
    handle& home_;
    region_node& node_;
    std::exception_ptr& child_failure_;
    bool passed_on_ = false;
};

/// Points the current task's spawns at `node` for one scope.
class scoped_spawn_region {
  public:
    explicit scoped_spawn_region(region_node& node)
        : extras_(current_task()->get_extras()), saved_(extras_.spawn_region) {
        extras_.spawn_region = &node;
    }
    ~scoped_spawn_region() { extras_.spawn_region = saved_; }
    scoped_spawn_region(const scoped_spawn_region&) = delete;
    scoped_spawn_region& operator=(const scoped_spawn_region&) = delete;

  private:
    task_extras& extras_;
    region_node* saved_;
};

template <class R, class F>
task<R> run_region(handle& home, region_node& parent, F body) {
    region_node node;
    node.home = &home;
    node.link_under(parent);
    if (home.tracing()) home.trace_region(node.id, true);
    parent.enter();
    std::optional<std::conditional_t<std::is_void_v<R>, bool, R>> value;
    std::exception_ptr failure;
    try {
        scoped_spawn_region inside(node);
        // The body's own failure comes back without a throw, so that a body
        // unwinding by cancellation costs one throw less.
        failure = co_await body(cx(home, current_task(), node)).caught(value);
    } catch (...) {
        failure = std::current_exception();  // starting the body failed
    }
    // A failure of the body comes first; else that of a task nobody took.
    std::exception_ptr child_failure;
    if (failure) {
        home.cancel_region(node, cancel_reason{"region body failed"});
    } else if ((child_failure = node.take_unhandled_failure())) {
        home.cancel_region(node, cancel_reason{"a task of the region failed"});
    }
    co_await region_drain_awaiter(home, node, failure ? failure : child_failure);
    if (!failure && !child_failure) child_failure = node.take_unhandled_failure();
    node.release_failed();
    node.unlink();
    if (home.tracing()) home.trace_region(node.id, false);
    parent.leave();
    if (failure) co_await ending_by{failure};
    if (child_failure) co_await ending_by{child_failure};
    if constexpr (!std::is_void_v<R>) co_return std::move(*value);
}

template <class R, class F>
task<R> invoke_with_cx(F body) {
    // `body` lives in this frame for as long as the task it returns runs.
    if constexpr (std::is_void_v<R>)
        co_await body(cx::current());
    else
        co_return co_await body(cx::current());
}

}  // namespace rtkit::detail
