#pragma once
// What a test controls and observes in the faulty test plugins: a fault it
// arms from outside (the plugins ask on every call of the method they can
// fail, and throw when it trips), and what the plugin saw (the reactor counts
// the blocking waits it entered, the lanes the steal requests they refused).
// Each plugin library exports its own control
// as `rtkit_test_plugin_control`, which the test finds with dlsym once the
// runtime has loaded the plugin.
#include <atomic>
#include <cstdint>
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
};

}  // namespace rtkit::test

/// Defines the control a faulty plugin exports (once per plugin library).
#define RTKIT_TEST_EXPORT_PLUGIN_CONTROL(variable)                                 \
    extern "C" __attribute__((visibility("default"))) rtkit::test::plugin_control* \
    rtkit_test_plugin_control() {                                                  \
        return &variable;                                                          \
    }
