#pragma once
// rtctl::exit_watchdog: ends `rtctl run` within a bound once its script
// should have ended, whatever the runtime's tasks or plugins do.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace rtctl {

/// A thread of rtctl's own, outside the runtime, so that a worker stuck in a
/// plugin call (a reactor's poll() that nothing wakes) or tasks that take long
/// to unwind (very many, or very deeply nested) cannot keep rtctl running:
///
/// - `grace` after the interpreter stopped the script (a limit, a deadlock:
///   the error is printed, every task is cancelled), the tasks still alive
///   are left to the operating system;
/// - `grace` after the time limit, if the interpreter did not stop the
///   script by then (the runtime no longer runs its timers), the watchdog
///   reports the time limit itself.
///
/// Either way it prints what it knows of where the runtime is held up
/// (`describe`, called on the watchdog's thread) and exits the process with
/// status 1 at once, without destructors.
class exit_watchdog {
  public:
    using clock = std::chrono::steady_clock;

    /// `time_limit`: how long the script may run from now, if it has a limit.
    /// `describe` gives notes on what is still running, each a line ending
    /// with a newline (or nothing).
    exit_watchdog(std::optional<clock::duration> time_limit, clock::duration grace,
                  std::function<std::string()> describe);
    /// Disarms the watchdog and joins its thread.
    ~exit_watchdog();
    exit_watchdog(const exit_watchdog&) = delete;
    exit_watchdog& operator=(const exit_watchdog&) = delete;

    /// The interpreter stopped the script. Any thread; only the first call counts.
    void script_stopped();

    /// The script's run ended (block_on returned); what is left is the
    /// runtime's shutdown, which gets until the same deadline.
    void run_ended();

  private:
    void watch();
    [[noreturn]] void give_up(bool stopped, bool ended);

    const std::optional<clock::duration> time_limit_;
    const clock::duration grace_;
    const std::function<std::string()> describe_;
    const clock::time_point started_ = clock::now();
    std::mutex lock_;
    std::condition_variable changed_;
    std::optional<clock::time_point> stopped_at_;  ///< guarded by lock_
    bool run_ended_ = false;                       ///< guarded by lock_
    bool disarmed_ = false;                        ///< guarded by lock_
    std::thread thread_;                           ///< last: starts once the rest is set
};

}  // namespace rtctl
