#pragma once
// What a test controls and observes in the faulty test plugins: a fault it
// arms from outside (the plugins ask on every call of the method they can
// fail, and throw when it trips), a gate that holds the reactor's blocking
// polls as a stuck plugin would, and what the plugin saw (the reactor counts
// the blocking waits it entered, the lanes the steal requests they refused).
// Each plugin library exports its own control
// as `rtkit_test_plugin_control`, which the test finds with dlsym once the
// runtime has loaded the plugin.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>

#include "rtkit/time.hpp"

namespace rtkit::test {

class plugin_control {
  public:
    /// Lets `successes` more calls pass, then fails the next one (once).
    /// Counts failures from zero again: the library, and so this control,
    /// may outlive the runtime of an earlier test (a sanitizer may keep a
    /// closed library mapped).
    void arm_fault(int successes) noexcept {
        failures_.store(0, std::memory_order_release);
        countdown_.store(successes, std::memory_order_release);
    }
    /// How many calls failed since the fault was armed.
    int failures() const noexcept { return failures_.load(std::memory_order_acquire); }
    /// How many waits that may block (a reactor poll with a non-zero timeout)
    /// the plugin has entered.
    int blocking_waits() const noexcept { return waits_.load(std::memory_order_acquire); }
    /// How many times a thief asked the lane plugin for entries.
    int steal_requests() const noexcept { return steals_.load(std::memory_order_acquire); }
    /// The deadline of the timer plugin's latest insert().
    instant last_inserted_deadline() const noexcept {
        return instant(duration(last_deadline_.load(std::memory_order_acquire)));
    }

    /// From now on, every reactor poll that may block (a non-zero timeout) is
    /// held inside the plugin, deaf to its timeout and to wake(), until
    /// release_polls(): a stuck plugin.
    void hold_blocking_polls() {
        std::lock_guard lock(gate_mutex_);
        holding_ = true;
    }
    /// Lets the held polls go on, and holds no more.
    void release_polls() {
        std::lock_guard lock(gate_mutex_);
        holding_ = false;
        gate_changed_.notify_all();
    }
    /// How many polls the gate holds now.
    int polls_held() const noexcept { return held_.load(std::memory_order_acquire); }

    /// Called by the reactor plugin in a poll that may block: waits while
    /// the gate holds.
    void pass_gate() {
        std::unique_lock lock(gate_mutex_);
        if (!holding_) return;
        held_.fetch_add(1, std::memory_order_acq_rel);
        gate_changed_.wait(lock, [this] { return !holding_; });
        held_.fetch_sub(1, std::memory_order_acq_rel);
    }

    /// Called by the plugin: throws when armed and the countdown is spent.
    void maybe_fail(const char* what) {
        int left = countdown_.load(std::memory_order_acquire);
        while (left >= 0) {
            if (countdown_.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) {
                if (left > 0) return;
                failures_.fetch_add(1, std::memory_order_acq_rel);
                throw std::runtime_error(what);
            }
        }
    }
    /// Called by the plugin as it enters a wait that may block.
    void note_blocking_wait() noexcept { waits_.fetch_add(1, std::memory_order_acq_rel); }
    /// Called by the lane plugin on each steal().
    void note_steal_request() noexcept { steals_.fetch_add(1, std::memory_order_acq_rel); }
    /// Called by the timer plugin on each insert().
    void note_insert(instant deadline) noexcept {
        last_deadline_.store(deadline.time_since_epoch().count(), std::memory_order_release);
    }

  private:
    std::atomic<int> countdown_{-1};  ///< -1: disarmed
    std::atomic<int> failures_{0};
    std::atomic<int> waits_{0};
    std::atomic<int> steals_{0};
    std::atomic<std::int64_t> last_deadline_{0};
    std::mutex gate_mutex_;
    std::condition_variable gate_changed_;
    bool holding_ = false;  ///< guarded by gate_mutex_
    std::atomic<int> held_{0};
};

}  // namespace rtkit::test

/// Defines the control a faulty plugin exports (once per plugin library).
#define RTKIT_TEST_EXPORT_PLUGIN_CONTROL(variable)                                 \
    extern "C" __attribute__((visibility("default"))) rtkit::test::plugin_control* \
    rtkit_test_plugin_control() {                                                  \
        return &variable;                                                          \
    }
