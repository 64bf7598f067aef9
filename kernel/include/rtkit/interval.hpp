#pragma once
// rtkit::interval: ticks at a fixed period on the runtime's timers, with a
// choice of what to do about ticks that were missed.
#include <chrono>
#include <coroutine>
#include <stdexcept>

#include "rtkit/cx.hpp"
#include "rtkit/detail/timer_await.hpp"

namespace rtkit {

/// What an interval does when a tick is taken late, more than
/// missed_tick_tolerance after it was due (the caller was busy elsewhere).
/// The late tick itself is always given at once; the choice is about the
/// ones after it. The same three choices as tokio's MissedTickBehavior.
enum class missed_tick_behavior {
    /// Keep the schedule: the missed ticks come one per tick() without
    /// waiting until the interval has caught up, then it ticks on its original
    /// schedule (start + n * period).
    burst,
    /// Start a new schedule: the next tick is one period after the late one
    /// was taken, and the ones after follow at a period each.
    delay,
    /// Drop the missed ticks: the next tick is the first one of the original
    /// schedule that is still ahead.
    skip,
};

/// A tick taken this much after it was due, or less, counts as on time: a
/// timer fires a little late by nature, and calling that a miss would make
/// `delay` drift on every tick.
inline constexpr duration missed_tick_tolerance = std::chrono::milliseconds(5);

/// When the tick after one due at `due` and taken at `now` is due. Pure: what
/// interval::tick does, stated without a clock so that it can be checked.
constexpr instant next_tick_after(missed_tick_behavior behavior, instant due, instant now,
                                  duration period) noexcept {
    if (now <= saturating_add(due, missed_tick_tolerance) ||
        behavior == missed_tick_behavior::burst)
        return saturating_add(due, period);
    if (behavior == missed_tick_behavior::delay) return saturating_add(now, period);
    // skip: the next point of due + n * period after now.
    return saturating_add(now, period - (now - due) % period);
}

/// A sequence of instants `period` apart: `co_await iv.tick()` waits for the
/// next one and gives the instant it was due (not the moment it was taken).
/// The first tick is due at the start: at once for interval(period), which
/// starts now. Unlike sleep(period) in a loop, the time a task spends between
/// two ticks does not push the schedule back.
///
/// Waiting uses a timer of the runtime's timer driver, as sleep does. A tick
/// is a cancellation point, and cancellation-safe: a tick() cancelled while it
/// waits takes no tick, so the next tick() gives the same one. One task ticks
/// an interval at a time; it may move between tasks and threads between
/// ticks, but not between runtimes (its instants are on one runtime's clock).
class interval {
  public:
    /// Ticks every `period`, the first tick due now. Needs a task (it reads
    /// the runtime's clock): throws no_runtime_error elsewhere, and
    /// std::invalid_argument when `period` is not positive.
    explicit interval(duration period) : interval(rtkit::now(), period) {}
    /// Ticks every `period`, the first tick due at `start` (past or future).
    /// Throws std::invalid_argument when `period` is not positive.
    interval(instant start, duration period) : next_(start), period_(period) {
        if (period <= duration::zero())
            throw std::invalid_argument("rtkit::interval: the period must be positive");
    }

    /// Awaitable of tick().
    class tick_awaiter {
      public:
        tick_awaiter(interval& owner, detail::handle& home) noexcept
            : owner_(owner), home_(home), sleep_(home, owner.next_) {}
        bool await_ready() const noexcept { return sleep_.await_ready(); }
        void await_suspend(std::coroutine_handle<> h) { sleep_.await_suspend(h); }
        instant await_resume() {
            sleep_.await_resume();  // throws task_cancelled, taking no tick
            return owner_.take_tick(home_.now());
        }

      private:
        interval& owner_;
        detail::handle& home_;
        detail::sleep_awaiter sleep_;
    };

    /// `instant due = co_await iv.tick()`: waits until the next tick is due
    /// (not at all if it is due already) and takes it. Throws no_runtime_error
    /// outside a task.
    [[nodiscard]] tick_awaiter tick() {
        detail::task_header* self = detail::current_task();
        if (!self) throw no_runtime_error("interval::tick needs a task of a runtime");
        return tick_awaiter(*this, self->home());
    }

    /// When the next tick is due.
    instant deadline() const noexcept { return next_; }
    duration period() const noexcept { return period_; }
    missed_tick_behavior missed_ticks() const noexcept { return behavior_; }
    /// What to do about ticks taken late from now on (default: burst).
    void set_missed_ticks(missed_tick_behavior behavior) noexcept { behavior_ = behavior; }

    /// Starts the schedule again: the next tick is due one period from now.
    /// Needs a task (throws no_runtime_error elsewhere).
    void reset() { next_ = saturating_add(rtkit::now(), period_); }
    /// Starts the schedule again: the next tick is due at `start`.
    void reset_at(instant start) noexcept { next_ = start; }

  private:
    /// Takes the tick due now (taken at `now`) and schedules the next one.
    instant take_tick(instant now) noexcept {
        const instant due = next_;
        next_ = next_tick_after(behavior_, due, now, period_);
        return due;
    }

    instant next_;
    duration period_;
    missed_tick_behavior behavior_ = missed_tick_behavior::burst;
};

}  // namespace rtkit
