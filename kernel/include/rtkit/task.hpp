#pragma once
// rtkit::task<T>: the lazy coroutine type every rtkit task is written in.
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/frame_cache.hpp"
#include "rtkit/detail/outcome_slot.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/outcome.hpp"

namespace rtkit {

template <class T = void>
class task;

namespace detail {

/// A frame destroyed while a stale lane entry still points into it keeps its
/// memory for that entry (task_header::destroy_frame): around its destruction
/// this holds the frame's address, and its operator delete leaves the size in
/// kept_frame_size_slot instead of freeing it.
extern __thread void* frame_to_keep_slot __attribute__((tls_model("initial-exec")));
extern __thread std::size_t kept_frame_size_slot __attribute__((tls_model("initial-exec")));
/// Bytes the frame allocator has mapped from the system so far (it never
/// unmaps): with frames reused, this stops growing once the load is steady.
/// Zero in sanitizer builds, whose frames come from the global allocator.
std::size_t frame_memory_mapped() noexcept;

/// Promise part shared by every task<T>.
struct promise_base : task_header {
    /// Awaiting this (never spawned) task inline: resume `parent` when it ends.
    /// A task awaited inline is never queued, so its lane link holds `parent`.
    void set_continuation(std::coroutine_handle<> parent) noexcept {
        lane_next = static_cast<schedulable*>(parent.address());
    }
    std::coroutine_handle<> continuation() const noexcept {
        return std::coroutine_handle<>::from_address(lane_next);
    }

    static void* operator new(std::size_t size) { return allocate_frame(size); }
    static void operator delete(void* frame, std::size_t size) noexcept {
        if (frame == frame_to_keep_slot) [[unlikely]] {
            kept_frame_size_slot = size;
            return;
        }
        free_frame(frame, size);
    }

    /// Every task starts suspended. Its first resumption is a cancellation
    /// point: a task cancelled before its first poll ends cancelled without
    /// running any of its body (the exception goes to unhandled_exception).
    struct initial_awaiter {
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<>) const noexcept {}
        void await_resume() const { check_cancel(); }
    };
    initial_awaiter initial_suspend() noexcept { return {}; }

    struct final_awaiter {
        bool await_ready() noexcept { return false; }
        template <class Promise>
        std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
            promise_base& p = self.promise();
            if (!p.is_spawned()) {  // awaited inline: back to the awaiting coroutine
                std::coroutine_handle<> parent = p.continuation();
                task_header* const running = current_task();
                running->resume_point = parent;
                // The awaiter's await point completed: it counts against the
                // budget. Where the compiler does not make this transfer a
                // tail call (GCC without optimisation), each inline task that
                // ends nests a native frame under its awaiter; the yield the
                // budget forces unwinds them, so a long loop of such awaits
                // keeps a short stack. The next poll resumes `parent`.
                if (coop_continue(running)) return parent;
                suspend_as_yield();
                return std::noop_coroutine();
            }
            return std::noop_coroutine();  // the worker sees frame().done()
        }
        void await_resume() noexcept {}
    };
    final_awaiter final_suspend() noexcept { return {}; }
};

/// What promise<T> and promise<void> share: the outcome, kept in an
/// outcome_slot whose tag is the header's outcome_tag. A slot that fits in a
/// word lives in the header's outcome_word (a finished task needs no resume
/// point); a larger one follows the header.
template <class V>
struct promise_with_outcome : promise_base {
    static constexpr bool outcome_in_header = sizeof(outcome_slot<V>) <= sizeof(outcome_word) &&
                                              alignof(outcome_slot<V>) <= alignof(void*);

    ~promise_with_outcome() {
        if (outcome_tag) slot().destroy(outcome_tag);
    }
    void unhandled_exception() noexcept { end_by(std::current_exception()); }
    /// Ends the task by `thrown` as if it had left the body (ended_by_exception
    /// then holds), without throwing it.
    void end_by(std::exception_ptr thrown) noexcept {
        new_slot().set_exception(outcome_tag, std::move(thrown));
        if (slot().is_panicked(outcome_tag)) note_failure(*this);
    }
    /// Throws on what the task ended with, if it ended by an exception
    /// (cancelled or panicked), so an awaiter unwinds with the same exception.
    void rethrow_if_thrown() const {
        if (ended_by_exception()) std::rethrow_exception(exception());
    }
    bool ended_ok() const noexcept { return outcome_slot<V>::is_ok(outcome_tag); }
    /// Moves the value out (ended_ok()), straight into an awaiter's result
    /// without building an outcome<V> on the way.
    V take_value() noexcept(std::is_nothrow_move_constructible_v<V>) {
        return std::move(slot().value());
    }
    bool ended_cancelled() const noexcept { return outcome_slot<V>::is_cancelled(outcome_tag); }
    bool ended_by_exception() const noexcept { return outcome_slot<V>::is_thrown(outcome_tag); }
    /// The exception the task ended by (ended_by_exception()).
    std::exception_ptr exception() const noexcept { return slot().exception(); }
    /// Moves the outcome out: the task's value once it finished, otherwise
    /// cancelled ("never completed").
    outcome<V> take_result() {
        if (!outcome_tag) return outcome<V>();
        return slot().take(outcome_tag);
    }

  protected:
    /// The slot, which holds an outcome (outcome_tag is not 0).
    outcome_slot<V>& slot() noexcept {
        if constexpr (outcome_in_header)
            return *std::launder(reinterpret_cast<outcome_slot<V>*>(outcome_word));
        else
            return own_slot_;
    }
    const outcome_slot<V>& slot() const noexcept {
        return const_cast<promise_with_outcome*>(this)->slot();
    }
    /// The slot, about to receive an outcome: made first if it holds none.
    outcome_slot<V>& new_slot() noexcept {
        if constexpr (outcome_in_header)
            if (!outcome_tag) return *new (outcome_word) outcome_slot<V>;
        return slot();
    }

  private:
    struct no_slot {};
    [[no_unique_address]] std::conditional_t<outcome_in_header, no_slot, outcome_slot<V>> own_slot_;
};

/// `co_await ending_by{e}` ends the awaiting task by the exception in `e`,
/// as `std::rethrow_exception(e)` would, and saves the raise and the catch
/// when the task is awaited inline: the outcome takes the exception and the
/// awaiting coroutine resumes, while this frame stays suspended here until
/// its task destroys it (its locals end then). A spawned task or a root,
/// which its worker sees end by its frame being done, throws as usual. It
/// refers to `e` rather than holding the pointer: with GCC 12, an awaiter
/// holding it released the exception once too often when the frame was
/// destroyed at this suspension.
struct ending_by {
    std::exception_ptr& thrown;

    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
        if (self.promise().is_spawned()) return self;  // to await_resume, which throws
        self.promise().end_by(std::move(thrown));
        return promise_base::final_awaiter{}.await_suspend(self);
    }
    void await_resume() const { std::rethrow_exception(thrown); }
};

template <class T>
struct promise : promise_with_outcome<T> {
    using value_type = T;
    task<T> get_return_object() noexcept;
    template <class U = T>
    void return_value(U&& value) {
        this->new_slot().set_value(this->outcome_tag, std::forward<U>(value));
    }
};

template <>
struct promise<void> : promise_with_outcome<std::monostate> {
    using value_type = void;
    task<void> get_return_object() noexcept;
    void return_void() noexcept { new_slot().set_value(outcome_tag, std::monostate{}); }
};

}  // namespace detail

/// A lazy coroutine producing a T. Nothing runs until it is awaited (inline, as
/// part of the awaiting task), spawned (as a task of its own) or given to
/// runtime::block_on. `co_await some_task` returns its value or rethrows what it
/// threw. A task is move-only; destroying one that never ran destroys its frame.
template <class T>
class [[nodiscard]] task {
  public:
    using promise_type = detail::promise<T>;
    using handle_type = std::coroutine_handle<promise_type>;

    task() noexcept = default;
    explicit task(handle_type h) noexcept : handle_(h) {}
    task(task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
    task& operator=(task other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    ~task() {
        if (handle_) handle_.destroy();
    }

    bool valid() const noexcept { return static_cast<bool>(handle_); }

    /// Gives up ownership of the frame (the kernel takes it when spawning).
    handle_type release() noexcept { return std::exchange(handle_, {}); }

    /// Awaiting a task runs it inline: same spawned task, same worker.
    class awaiter {
      public:
        explicit awaiter(handle_type child) noexcept : child_(child) {}
        bool await_ready() const noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
            child_.promise().set_continuation(parent);
            // The worker resumes a suspended task at its innermost frame.
            detail::current_task()->resume_point = child_;
            return child_;
        }
        T await_resume() {
            auto& p = child_.promise();
            if (p.ended_ok()) [[likely]] {
                if constexpr (std::is_void_v<T>)
                    return;
                else
                    return p.take_value();
            }
            // A cancelled or panicked inline task keeps unwinding its awaiter
            // with the same exception.
            p.rethrow_if_thrown();
            outcome<T> result = p.take_result();
            if (result.is_cancelled()) throw task_cancelled(result.reason());  // never completed
            if constexpr (std::is_void_v<T>)
                std::move(result).value();
            else
                return std::move(result).value();
        }

      protected:
        handle_type child_;
    };
    awaiter operator co_await() && noexcept { return awaiter(handle_); }

    /// Awaited, runs the task inline as `co_await` does, but hands back the
    /// exception it ended by (cancelled or panicked) instead of throwing it,
    /// or nullptr once its value went to `*into`. For a scope that runs its
    /// cleanup after its body whatever happened (a region draining its tasks)
    /// without a throw and a catch for every body that ends by unwinding.
    template <class Into>
    struct caught_awaiter : awaiter {
        Into* into;
        std::exception_ptr await_resume() {
            auto& p = this->child_.promise();
            if (p.ended_by_exception()) return p.exception();
            try {
                if constexpr (std::is_void_v<T>)
                    awaiter::await_resume(), *into = true;
                else
                    *into = awaiter::await_resume();
            } catch (...) {
                return std::current_exception();
            }
            return nullptr;
        }
    };
    template <class Into>
    caught_awaiter<Into> caught(Into& into) && noexcept {
        return {awaiter(handle_), &into};
    }

  private:
    handle_type handle_;
};

namespace detail {
template <class T>
task<T> promise<T>::get_return_object() noexcept {
    // task_header::frame() finds the frame from the header's own alignment.
    static_assert(alignof(promise<T>) <= 16,
                  "rtkit::task<T>: T may be aligned to 16 bytes at most; return an "
                  "over-aligned value through a std::unique_ptr");
    static_assert(!promise<T>::outcome_in_header || sizeof(promise<T>) == sizeof(task_header),
                  "an outcome that fits in the header's word costs the promise no bytes");
    return task<T>(std::coroutine_handle<promise<T>>::from_promise(*this));
}
inline task<void> promise<void>::get_return_object() noexcept {
    return task<void>(std::coroutine_handle<promise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace rtkit
