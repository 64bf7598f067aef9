#pragma once
// The clocks a timer case runs on: a manual clock the suite moves (what a
// virtual clock does), and the real one; and the driver each case gets, bound
// to the clock when the driver binds (rtkit/clock.hpp).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "rtkit/clock.hpp"
#include "rtkit/timer_driver.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance::detail {

/// A clock a case runs on, given to drivers that bind one.
class case_clock : public clock_source {
  public:
    /// "the manual clock" or "the real clock", for messages.
    virtual const char* name() const noexcept = 0;
    /// Lets time pass until now() >= t: the manual clock jumps there, the
    /// real one is waited for (cases wait a few milliseconds at most).
    virtual void wait_until(instant t) = 0;
    /// What a runtime does before fire(t): the manual clock moves to `t` (if it
    /// is ahead); the real clock cannot, and `t` may then be ahead of it, as a
    /// deadline days away is reached without waiting days.
    virtual void move_to(instant t) noexcept = 0;

  protected:
    ~case_clock() = default;
};

/// Starts at instant{} (zero) and moves only when the case moves it.
class manual_clock final : public case_clock {
  public:
    instant now() const noexcept override {
        return instant(duration(ns_.load(std::memory_order_acquire)));
    }
    const char* name() const noexcept override { return "the manual clock"; }
    void wait_until(instant t) override { move_to(t); }
    void move_to(instant t) noexcept override {
        if (t > now()) ns_.store(t.time_since_epoch().count(), std::memory_order_release);
    }

  private:
    std::atomic<std::int64_t> ns_{0};
};

/// steady_clock, the clock of a driver that binds none.
class real_clock final : public case_clock {
  public:
    instant now() const noexcept override {
        return std::chrono::time_point_cast<duration>(std::chrono::steady_clock::now());
    }
    const char* name() const noexcept override { return "the real clock"; }
    void wait_until(instant t) override {
        for (instant at = now(); at < t; at = now())
            std::this_thread::sleep_for(t - at);
    }
    void move_to(instant) noexcept override {}
};

/// What a timer case runs with: its clock, and fresh drivers bound to it.
struct timer_env {
    case_clock& clock;
    const factory<timer_driver>& factory_;
    bool bind;  ///< the driver answers rtkit.timer_clock.v1

    /// A new driver, bound to `clock` first when it binds.
    std::shared_ptr<timer_driver> make() const {
        auto driver = factory_();
        if (bind)
            static_cast<timer_clock_binding*>(driver->query_interface(timer_clock_binding_name))
                ->bind_clock(clock);
        return driver;
    }
    instant now() const noexcept { return clock.now(); }
    /// Fires `driver` at `t` as a runtime would: the clock moves there first.
    std::size_t fire_at(timer_driver& driver, instant t) const {
        clock.move_to(t);
        return driver.fire(t);
    }
};

/// Runs `body` on the manual clock when the driver binds a clock, then on the
/// real clock (bound to it, or the driver's own); a failure names the clock.
inline void run_on_each_clock(const factory<timer_driver>& make, void (*body)(const timer_env&)) {
    const bool binds = make()->query_interface(timer_clock_binding_name) != nullptr;
    auto run = [&](case_clock& clock) {
        try {
            body(timer_env{clock, make, binds});
        } catch (const case_failure& e) {
            throw case_failure(std::string("on ") + clock.name() + ": " + e.what());
        }
    };
    if (binds) {
        manual_clock manual;
        run(manual);
    }
    real_clock real;
    run(real);
    if (!binds)
        note(std::string("the real clock only: the driver does not answer ") +
             timer_clock_binding_name);
}

}  // namespace rtkit::conformance::detail
