#include "blocking_pool.hpp"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "rtkit/blocking.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

/// What the pool's threads share with it, guarded by `mutex`.
struct blocking_pool_state {
    std::mutex mutex;
    /// Idle threads wait here for a call (or the close).
    std::condition_variable call_or_close;
    /// close() waits here for the threads to end and for wakes to finish.
    std::condition_variable thread_ended;
    std::deque<blocking_job*> queue;
    std::size_t max_threads = 0;
    std::chrono::milliseconds keep_alive{};
    std::size_t threads = 0;  ///< alive
    std::size_t idle = 0;     ///< waiting for a call, not yet claimed
    /// Idle threads a submit claimed and notified, that have not woken yet:
    /// each wakes to take a call, even if its keep-alive ran out meanwhile.
    std::size_t claimed = 0;
    std::size_t running = 0;  ///< calls running now (not yet returned)
    std::size_t waking = 0;   ///< pool threads waking a task now
    /// Threads done with a call that will look at the queue before idling.
    std::size_t finishing = 0;
    bool closed = false;
};

namespace {

/// Runs the call at the front of the queue and wakes its task. Called and
/// returns with the lock held.
void run_next(blocking_pool_state& pool, std::unique_lock<std::mutex>& lock) {
    blocking_job* job = pool.queue.front();
    pool.queue.pop_front();
    ++pool.running;
    lock.unlock();
    job->run();
    waker waiting = job->settle();
    lock.lock();
    // The call is over: a shutdown from here on must not count it as left
    // running (its task may have its result before this thread is done).
    --pool.running;
    // The task may submit its next call as soon as it is woken: this thread
    // takes it (it looks at the queue again before it idles), no new one.
    ++pool.finishing;
    // Once the pool is closed, the runtime may be gone: a task still waiting
    // then is one its shutdown could not unwind, and is not woken. Until
    // then close() waits for this wake to end.
    if (waiting && !pool.closed) {
        ++pool.waking;
        lock.unlock();
        waiting.wake();
        lock.lock();
        --pool.waking;
        pool.thread_ended.notify_all();
    }
    lock.unlock();
    waiting.reset();
    job->release();  // the pool's reference: the result may go here
    lock.lock();
    --pool.finishing;
}

/// Waits, idle, for a submit to claim this thread; false when the keep-alive
/// ran out or the pool closed first. Called and returns with the lock held.
bool wait_for_call(blocking_pool_state& pool, std::unique_lock<std::mutex>& lock) {
    ++pool.idle;
    const auto give_up = std::chrono::steady_clock::now() + pool.keep_alive;
    while (true) {
        const bool timed_out =
            pool.call_or_close.wait_until(lock, give_up) == std::cv_status::timeout;
        if (pool.claimed > 0) {  // a submit took this thread (and counted idle down)
            --pool.claimed;
            return true;
        }
        if (pool.closed || timed_out) {
            --pool.idle;
            return false;
        }
    }
}

/// A pool thread: runs calls while there are any, then waits for the next
/// one up to the keep-alive, and ends when it runs out or the pool closes.
void serve(std::shared_ptr<blocking_pool_state> pool) {
    std::unique_lock lock(pool->mutex);
    do {
        while (!pool->queue.empty())
            run_next(*pool, lock);
    } while (!pool->closed && wait_for_call(*pool, lock));
    --pool->threads;
    pool->thread_ended.notify_all();
}

}  // namespace

blocking_pool::blocking_pool(const blocking_pool_config& config)
    : state_(std::make_shared<blocking_pool_state>()) {
    if (config.max_threads < 1)
        throw std::invalid_argument("blocking.max_threads = " + std::to_string(config.max_threads) +
                                    ": the blocking pool needs at least 1 thread");
    if (config.keep_alive.count() < 0)
        throw std::invalid_argument(
            "blocking.keep_alive_ms = " + std::to_string(config.keep_alive.count()) +
            ": a keep-alive cannot be negative");
    state_->max_threads = static_cast<std::size_t>(config.max_threads);
    state_->keep_alive = config.keep_alive;
}

blocking_pool::~blocking_pool() {
    close(std::nullopt);
}

void blocking_pool::submit(blocking_job& job) {
    blocking_pool_state& pool = *state_;
    std::lock_guard lock(pool.mutex);
    if (pool.closed)
        throw blocking_call_refused("the runtime shut down: it runs no more blocking calls");
    pool.queue.push_back(&job);
    if (pool.idle > 0) {
        --pool.idle;
        ++pool.claimed;
        pool.call_or_close.notify_one();
        return;
    }
    if (pool.queue.size() <= pool.finishing) return;  // a thread done with its call takes it
    if (pool.threads >= pool.max_threads) return;     // the next thread to finish takes it
    try {
        std::thread thread(serve, state_);
        // Named here rather than by the thread: it has its name when submit returns.
        pthread_setname_np(thread.native_handle(), blocking_thread_name);
        thread.detach();
        ++pool.threads;
    } catch (const std::system_error&) {
        if (pool.threads > 0) return;  // a running thread takes it later
        pool.queue.pop_back();
        throw;
    }
}

std::size_t blocking_pool::close(std::optional<std::chrono::steady_clock::time_point> until) {
    blocking_pool_state& pool = *state_;
    std::deque<blocking_job*> never_run;
    std::unique_lock lock(pool.mutex);
    if (!pool.closed) {
        pool.closed = true;
        never_run.swap(pool.queue);
        pool.call_or_close.notify_all();
    }
    // Idle threads end at once; a running call ends when it ends.
    if (until)
        pool.thread_ended.wait_until(lock, *until, [&] { return pool.threads == 0; });
    else
        pool.thread_ended.wait(lock, [&] { return pool.threads <= pool.running; });
    // A wake under way touches the runtime: it must end before the runtime goes.
    pool.thread_ended.wait(lock, [&] { return pool.waking == 0; });
    const std::size_t left = pool.running;
    lock.unlock();
    for (blocking_job* job : never_run) {
        job->refuse().wake();
        job->release();
    }
    return left;
}

// --- blocking_job ---

void blocking_job::run() noexcept {
    bool abandoned;
    {
        std::lock_guard guard(lock_);
        abandoned = abandoned_;
    }
    if (!abandoned) invoke();  // abandoned meanwhile: the result goes with the job
}

waker blocking_job::settle() noexcept {
    std::lock_guard guard(lock_);
    settled_.store(true, std::memory_order_release);
    return std::move(waiter_);
}

waker blocking_job::refuse() noexcept {
    std::lock_guard guard(lock_);
    refused_ = true;
    settled_.store(true, std::memory_order_release);
    return std::move(waiter_);
}

bool blocking_job::wait_with(waker w) noexcept {
    waker dropped;  // released after the unlock
    std::lock_guard guard(lock_);
    if (settled_.load(std::memory_order_relaxed)) {
        dropped = std::move(w);
        return false;
    }
    dropped = std::exchange(waiter_, std::move(w));
    return true;
}

void blocking_job::abandon() noexcept {
    waker dropped;
    std::lock_guard guard(lock_);
    abandoned_ = true;
    dropped = std::move(waiter_);
}

void submit_blocking(blocking_job& job) {
    task_header* task = current_task();
    if (!task)
        throw no_runtime_error(
            "a blocking call needs a runtime: run it in a task, or in a block_on root");
    job.add_ref();  // the pool's, dropped once it ran or refused the call
    try {
        task->home().group().blocking().submit(job);
    } catch (...) {
        job.release();
        throw;
    }
}

}  // namespace rtkit::detail
