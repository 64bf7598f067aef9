#pragma once
// A fault a test arms from outside a plugin: the faulty test plugins ask it on
// every call of the method they can fail, and throw when it trips. Each plugin
// library exports its own switch as `rtkit_test_fault_switch`, which the test
// finds with dlsym once the runtime has loaded the plugin.
#include <atomic>
#include <stdexcept>

namespace rtkit::test {

class fault_switch {
  public:
    /// Lets `successes` more calls pass, then fails the next one (once).
    void arm(int successes) noexcept { countdown_.store(successes, std::memory_order_release); }
    void disarm() noexcept { countdown_.store(-1, std::memory_order_release); }
    /// How many calls failed so far.
    int failures() const noexcept { return failures_.load(std::memory_order_acquire); }

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

  private:
    std::atomic<int> countdown_{-1};  ///< -1: disarmed
    std::atomic<int> failures_{0};
};

}  // namespace rtkit::test

/// Defines the switch a faulty plugin exports (once per plugin library).
#define RTKIT_TEST_EXPORT_FAULT_SWITCH(variable)                                 \
    extern "C" __attribute__((visibility("default"))) rtkit::test::fault_switch* \
    rtkit_test_fault_switch() {                                                  \
        return &variable;                                                        \
    }
