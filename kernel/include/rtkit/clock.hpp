#pragma once
// rtkit::clock_source: a runtime's one clock, and the extension through which a
// timer driver is bound to it.
#include "rtkit/time.hpp"

namespace rtkit {

/// A runtime's one clock: every instant of the runtime (cx::now(), sleep and
/// timeout deadlines, what the timer driver is fired with) is read from it.
/// Monotonic: never smaller than a value it returned before, on any thread.
/// Any thread may call now() at any time. The runtime owns its clock; nobody
/// destroys one through this interface.
class clock_source {
  public:
    virtual instant now() const noexcept = 0;

  protected:
    ~clock_source() = default;
};

/// The name under which a timer driver answers query_interface() with a
/// timer_clock_binding*.
inline constexpr const char* timer_clock_binding_name = "rtkit.timer_clock.v1";

/// An extension of timer_driver (version 1): lets the runtime give the driver
/// the runtime's clock instead of its own.
///
/// The kernel calls bind_clock() once, right after creating the driver and
/// before any other call on it. From then on the driver's now() returns
/// clock.now(), whatever origin it keeps (a wheel's tick 0) is taken from that
/// clock, and every instant the kernel passes (insert's deadline, fire's now)
/// is on that clock. The clock outlives the driver. A virtual clock starts at
/// instant{} (zero) and moves only when the runtime moves it, possibly by hours
/// at once.
///
/// A driver that does not answer keeps its own steady_clock (the ABI 2.0
/// contract); the runtime then refuses a virtual clock for it.
class timer_clock_binding {
  public:
    virtual void bind_clock(const clock_source& clock) noexcept = 0;

  protected:
    ~timer_clock_binding() = default;
};

}  // namespace rtkit
