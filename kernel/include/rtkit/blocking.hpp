#pragma once
// rtkit::run_blocking and rtkit::spawn_blocking: a blocking function, run on
// the runtime's pool of blocking threads while the task that awaits it waits.
#include <atomic>
#include <coroutine>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include "rtkit/cx.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/task.hpp"

namespace rtkit {

/// Thrown to a task whose blocking call was dropped before it ran because
/// the runtime shut down.
class blocking_call_refused : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

namespace detail {

/// One call on the blocking pool, shared by the task that awaits it and the
/// pool thread that runs it (each holds a reference). States, under `lock_`:
/// queued -> running -> done, and abandoned (the task went away: a queued call
/// is then skipped, a running one's result is dropped on the pool thread) or
/// refused (the pool closed before it ran).
class blocking_job {
  public:
    blocking_job() noexcept = default;
    blocking_job(const blocking_job&) = delete;
    blocking_job& operator=(const blocking_job&) = delete;

    /// Pool thread: runs the call, unless it was abandoned.
    void run() noexcept;
    /// Pool thread, after run(): marks the call settled and hands over the
    /// waker of the task waiting for it (empty when none waits).
    waker settle() noexcept;
    /// The pool closed before running it: marks it refused and settled, and
    /// hands over the waiting task's waker.
    waker refuse() noexcept;

    /// Task side: true once the call completed or was refused.
    bool settled() const noexcept { return settled_.load(std::memory_order_acquire); }
    bool refused() const noexcept { return refused_; }
    /// Keeps `w` to wake at completion; false (keeping nothing) when settled already.
    bool wait_with(waker w) noexcept;
    /// The task stops waiting: a queued call will not run, a running one's
    /// result is dropped. Does nothing once settled.
    void abandon() noexcept;
    /// Takes the pool's reference (submit_blocking).
    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
    /// Drops one reference; the last destroys the job.
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  protected:
    virtual ~blocking_job() = default;
    /// Runs the function and keeps its result or exception (pool thread).
    virtual void invoke() noexcept = 0;

  private:
    sync::detail::spin_lock lock_;
    waker waiter_;
    bool abandoned_ = false;
    bool refused_ = false;  ///< written before settled_ is released
    std::atomic<bool> settled_{false};
    /// The awaiting task's, and the pool's from submit_blocking on.
    std::atomic<int> refs_{1};
};

/// Hands `job` to the blocking pool of the running task's runtime. Throws
/// no_runtime_error outside a task, blocking_call_refused once the runtime
/// shut down, std::system_error when no pool thread could be started and none
/// runs.
void submit_blocking(blocking_job& job);

/// `F` and what it returned (or threw).
template <class F, class R>
class blocking_call final : public blocking_job {
  public:
    explicit blocking_call(F&& f) : f_(std::move(f)) {}

    /// Task side, once settled and not refused: the value, or what F threw.
    R take() {
        if (auto* failure = std::get_if<std::exception_ptr>(&result_))
            std::rethrow_exception(*failure);
        if constexpr (!std::is_void_v<R>) return std::move(*std::get<1>(result_));
    }

  private:
    using stored = std::conditional_t<std::is_void_v<R>, std::monostate, std::optional<R>>;

    void invoke() noexcept override {
        try {
            if constexpr (std::is_void_v<R>) {
                std::invoke(*f_);
                result_.template emplace<1>();
            } else {
                result_.template emplace<1>(std::in_place, std::invoke(*f_));
            }
        } catch (...) {
            result_.template emplace<2>(std::current_exception());
        }
        f_.reset();  // what it captured goes now, on the pool thread
    }

    std::optional<F> f_;
    std::variant<std::monostate, stored, std::exception_ptr> result_;
};

/// The awaiting task's reference to a job, passed into the coroutine that
/// awaits it: a frame destroyed while it waits (or before it ran) abandons
/// the call. A class with constructors of its own, not an aggregate, and
/// `f` itself is never a coroutine parameter: GCC 12 copies an aggregate
/// coroutine parameter bitwise (see run_blocking).
template <class Job>
class blocking_job_ref {
  public:
    explicit blocking_job_ref(Job* job) noexcept : job_(job) {}
    blocking_job_ref(blocking_job_ref&& other) noexcept
        : job_(std::exchange(other.job_, nullptr)) {}
    blocking_job_ref& operator=(blocking_job_ref&&) = delete;
    ~blocking_job_ref() {
        if (!job_) return;
        job_->abandon();
        job_->release();
    }
    Job& operator*() const noexcept { return *job_; }

  private:
    Job* job_;
};

/// Suspends until the job settles or the task is cancelled. A cancellation
/// point: cancelled first, it abandons the call; a result that came first is
/// returned instead.
class blocking_wait : leaf_check {
  public:
    explicit blocking_wait(blocking_job& job) noexcept : leaf_check{&leaf_ready}, job_(job) {}
    bool await_ready() const noexcept { return job_.settled() || cancel_pending(); }
    bool await_suspend(std::coroutine_handle<>) {
        task_header* self = current_task();
        if (!job_.wait_with(self->make_waker())) return false;
        self->leaf = this;
        return true;
    }
    void await_resume() {
        if (!job_.settled()) {
            job_.abandon();
            check_cancel();  // the only other way the leaf check lets it resume
            throw std::logic_error("resumed before its blocking call settled");
        }
        if (job_.refused())
            throw blocking_call_refused(
                "the runtime shut down before this blocking call could run");
    }

  private:
    static bool leaf_ready(leaf_check& self) noexcept {
        auto& me = static_cast<blocking_wait&>(self);
        return me.job_.settled() || cancel_pending();
    }
    blocking_job& job_;
};

/// The task behind run_blocking: submits the job when it first runs, then
/// waits for it.
template <class R, class Job>
task<R> await_blocking(blocking_job_ref<Job> job) {
    submit_blocking(*job);
    co_await blocking_wait(*job);
    co_return (*job).take();
}

}  // namespace detail

/// Runs `f()` on the runtime's blocking pool (a separate set of threads, so
/// the workers go on running tasks) and gives what it returned, or throws what
/// it threw. For calls that block: file I/O, a C library that waits, a
/// computation long enough to hold up other tasks.
///
/// The pool starts threads as calls need them, up to `[blocking] max_threads`
/// (calls beyond that wait in line), and a thread idle for `keep_alive_ms`
/// ends (runtime_config::blocking). The call starts when the task first
/// runs. A cancellation point: a task cancelled while it waits stops waiting
/// at once; a call still in line is then never run, and one already running
/// goes on to its end (a thread cannot be interrupted), its result destroyed
/// on the pool thread. runtime::shutdown_timeout waits for running calls
/// within its bound; runtime::shutdown does not wait, and lets them end on
/// their own threads (runtime.hpp). `f` must not hold references to anything
/// that may go before it ends.
///
/// With GCC 12, name a lambda that captures by value before awaiting:
/// `auto read = [path] { ... }; co_await run_blocking(std::move(read));`.
/// GCC 12 copies an aggregate temporary (a lambda, a struct built with
/// braces) of a co_await expression bitwise, so a short std::string captured
/// in `co_await run_blocking([path] { ... })` frees memory it does not own.
template <class F>
requires std::invocable<F&> &&(!std::is_reference_v<std::invoke_result_t<F&>>)
    task<std::invoke_result_t<F&>> run_blocking(F f) {
    using R = std::invoke_result_t<F&>;
    return detail::await_blocking<R>(
        detail::blocking_job_ref(new detail::blocking_call<F, R>(std::move(f))));
}

/// Starts `run_blocking(f)` as a task of its own (tokio's spawn_blocking):
/// the call starts without waiting for anyone to await it, and the handle
/// gives its outcome. Cancelling the handle is cancelling the wait (see
/// run_blocking).
template <class F>
requires std::invocable<F&> &&(!std::is_reference_v<std::invoke_result_t<F&>>)
    join_handle<std::invoke_result_t<F&>> spawn_blocking(F f) {
    return spawn(run_blocking(std::move(f)));
}

}  // namespace rtkit
