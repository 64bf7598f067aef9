#pragma once
// Time as the kernel sees it. Every instant comes from a timer driver's clock
// (timer_driver::now), never from a direct system-clock call in kernel code, so a
// virtual clock can stand in for deterministic runs.
#include <chrono>

namespace rtkit {

/// A span of time, in nanoseconds.
using duration = std::chrono::nanoseconds;

/// A point on a timer driver's monotonic clock. Real drivers use steady_clock's
/// epoch; a virtual clock may start anywhere, so compare instants only with
/// instants from the same driver.
using instant = std::chrono::time_point<std::chrono::steady_clock, duration>;

}  // namespace rtkit
