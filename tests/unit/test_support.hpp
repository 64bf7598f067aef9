#pragma once
// Small awaitables and helpers shared by the kernel tests.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "../support/thread_count.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/rtkit.hpp"

namespace rtkit::test {

/// An event that a test fires by hand (from any thread); a task awaiting it
/// suspends until then. Counts how often the awaiting task was resumed.
class manual_event {
  public:
    struct awaiter {
        manual_event& event;
        bool await_ready() const noexcept { return event.fired_.load(); }
        bool await_suspend(std::coroutine_handle<>) {
            std::lock_guard lock(event.mutex_);
            // Fired since await_ready (from another thread): fire() found no
            // waker to wake, so do not wait for one.
            if (event.fired_.load()) return false;
            event.waiter_ = current_waker();
            event.armed_.store(true);
            event.armed_changed_.notify_all();
            return true;
        }
        void await_resume() noexcept {}
    };
    awaiter wait() { return awaiter{*this}; }
    /// Fires the event: wakes the waiting task (if any).
    void fire() {
        waker w;
        {
            std::lock_guard lock(mutex_);
            fired_.store(true);
            w = std::move(waiter_);
        }
        w.wake();
    }
    /// The stored waker, cloned (to wake without firing).
    waker peek_waker() {
        std::lock_guard lock(mutex_);
        return waiter_;
    }
    bool armed() const { return armed_.load(); }
    /// Blocks this thread until a task awaits the event, at most `limit`;
    /// returns armed().
    bool wait_until_armed(std::chrono::milliseconds limit) {
        std::unique_lock lock(mutex_);
        return armed_changed_.wait_for(lock, limit, [this] { return armed_.load(); });
    }

  private:
    std::mutex mutex_;
    waker waiter_;
    std::atomic<bool> fired_{false};
    std::atomic<bool> armed_{false};
    std::condition_variable armed_changed_;
};

/// Counts tasks that reached a point of their body; a task waits until n of
/// them have (a real wait, on a semaphore: no polling, no time bound).
class arrivals {
  public:
    void arrive() {
        count_.fetch_add(1);
        reached_.release(1);
    }
    /// Waits until `n` arrived in all.
    task<void> wait_for(std::size_t n) {
        sync::semaphore_permit all = co_await reached_.acquire(n);  // given back at the end
    }
    int count() const { return count_.load(); }

  private:
    std::atomic<int> count_{0};
    sync::semaphore reached_{0};
};

/// The default configuration, on the multi_thread flavor with `workers` workers.
inline runtime_config multi_thread(int workers) {
    runtime_config c;
    c.flavor = "multi_thread";
    c.workers = workers;
    return c;
}

/// Runs `body(config)` on each flavor, as tokio's rt_test! does: the default
/// configuration (current_thread) and multi_thread with two workers. A
/// failure names the flavor it failed on.
inline std::array<runtime_config, 2> both_flavors() {
    return {runtime_config{}, multi_thread(2)};
}
template <class Body>
void on_both_flavors(Body&& body) {
    // Made by a plain function: GCC 12 fails (an internal compiler error) on
    // a runtime_config{} written inside this template.
    for (const runtime_config& config : both_flavors()) {
        INFO("flavor: " << config.flavor);
        body(config);
    }
}

/// The default configuration with the virtual clock.
inline runtime_config virtual_clock() {
    runtime_config c;
    c.clock = "virtual";
    return c;
}

/// The thread a task runs on after one yield.
inline task<std::thread::id> thread_of_task() {
    co_await yield_now();
    co_return std::this_thread::get_id();
}

/// Counts its destruction, so a test sees that a task was unwound.
struct unwind_mark {
    std::atomic<int>& count;
    ~unwind_mark() { ++count; }
};

inline task<std::int64_t> value_of(std::int64_t v) {
    co_return v;
}

/// Counts its live instances in `alive`: a task's parameter, to see when its
/// frame goes.
struct counted {
    std::atomic<int>* alive;
    explicit counted(std::atomic<int>& a) : alive(&a) { ++*alive; }
    counted(counted&& o) noexcept : alive(std::exchange(o.alive, nullptr)) {}
    ~counted() {
        if (alive) --*alive;
    }
};

/// Tasks that each wait for a wake, again and again until told to stop, and
/// hand their wakers to whoever wants to wake them.
class wake_targets {
  public:
    /// The next waker to use (a clone), round robin; empty when none waits yet.
    waker any() {
        std::lock_guard lock(mutex_);
        if (wakers_.empty()) return {};
        return wakers_[next_++ % wakers_.size()];
    }
    void stop() { stopping_ = true; }

    /// One task's body.
    task<void> wait_until_stopped() {
        std::size_t mine = 0;
        {
            std::lock_guard lock(mutex_);
            mine = wakers_.size();
            wakers_.emplace_back();
        }
        while (!stopping_.load())
            co_await park_here{*this, mine};
    }

  private:
    struct park_here {
        wake_targets& targets;
        std::size_t slot;
        bool await_ready() const noexcept { return targets.stopping_.load(); }
        void await_suspend(std::coroutine_handle<>) {
            std::lock_guard lock(targets.mutex_);
            targets.wakers_[slot] = current_waker();
        }
        void await_resume() const noexcept {}
    };
    std::mutex mutex_;
    std::vector<waker> wakers_;
    std::size_t next_ = 0;
    std::atomic<bool> stopping_{false};
};

/// Entries that tasks on any thread append, in the order they come.
template <class T>
class locked_log {
  public:
    void add(T entry) {
        std::lock_guard lock(mutex_);
        entries_.push_back(std::move(entry));
    }
    std::vector<T> entries() const {
        std::lock_guard lock(mutex_);
        return entries_;
    }

  private:
    mutable std::mutex mutex_;
    std::vector<T> entries_;
};

/// Yields until `done()` holds, from a task on either flavor (on
/// multi_thread what it waits for runs on another thread, which a loaded
/// machine may not schedule for a while); fails the test after 10 s instead
/// of hanging.
template <class Done>
task<void> yield_until(Done done) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < limit)
        co_await yield_now();
    REQUIRE(done());
}

/// A flag one thread sets and others wait for, with a limit on the wait (a
/// test that would otherwise hang fails instead).
class signal_flag {
  public:
    void set() {
        std::lock_guard lock(mutex_);
        set_.store(true);
        changed_.notify_all();
    }
    bool is_set() const { return set_.load(); }
    /// True once set; false when `limit` passed first.
    bool wait_for(std::chrono::milliseconds limit) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, limit, [this] { return set_.load(); });
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::atomic<bool> set_{false};
};

#ifdef RTKIT_CHAOS
/// While it lives, the kernel calls `hook` at every chaos point
/// (rtkit/detail/chaos.hpp), on the thread that reaches it: a test holds a
/// thread there to force the interleaving it is about. The hook runs on every
/// thread of every runtime, so it must be quick unless its own condition
/// says this is the thread and the moment.
class chaos_hook {
  public:
    explicit chaos_hook(std::function<void(detail::chaos::site)> hook) : hook_(std::move(hook)) {
        detail::chaos::set_hook(&call, this);
    }
    ~chaos_hook() { detail::chaos::set_hook(nullptr, nullptr); }
    chaos_hook(const chaos_hook&) = delete;
    chaos_hook& operator=(const chaos_hook&) = delete;

  private:
    static void call(detail::chaos::site s, void* self) {
        static_cast<chaos_hook*>(self)->hook_(s);
    }
    std::function<void(detail::chaos::site)> hook_;
};
#endif

}  // namespace rtkit::test
