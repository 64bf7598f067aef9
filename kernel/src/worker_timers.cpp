// A worker's timers: every arm, cancel and fire goes through here, so the
// worker knows when none is armed and skips asking its timer driver.
#include <algorithm>
#include <utility>

#include "trace_recorder.hpp"
#include "worker.hpp"

namespace rtkit::detail {

// Each call of the timer driver is marked on the activity board, which then
// names a plugin that does not return.

timer_handle worker::arm_timer(instant deadline, waker w) {
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_insert);
    const timer_handle id = timers_->insert(deadline, std::move(w));
    ++armed_timers_;
    if (deadline < timers_due_from_) no_timer_due_below_ = 0;  // due sooner than known
    counters_.timers_armed.add();
    if (trace_) trace_timer(static_cast<std::uint8_t>(trace_kind::timer_arm));
    return id;
}

void worker::cancel_timer(timer_handle id) noexcept {
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_cancel);
    if (timers_->cancel(id)) {
        --armed_timers_;
        counters_.timers_cancelled.add();
        if (trace_) trace_timer(static_cast<std::uint8_t>(trace_kind::timer_cancel));
    }
}

void worker::fire_due_timers() {
    if (armed_timers_ == 0) return;
    // Most calls come long before the next deadline: a mark tells it.
    if (clock_.take_mark() < no_timer_due_below_) return;
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_fire);
    const std::optional<instant> next = timers_->next_deadline();
    if (!next) return;
    const instant now = clock_.now();
    if (*next > now) {
        timers_due_from_ = *next;
        no_timer_due_below_ = clock_.mark_before(*next);
        return;
    }
    no_timer_due_below_ = 0;  // what is left is asked for next time
    const std::size_t fired = timers_->fire(now);
    armed_timers_ -= std::min(armed_timers_, fired);
    counters_.timers_fired.add(fired);
    if (trace_ && fired) trace_count(static_cast<std::uint8_t>(trace_kind::timer_fire), fired);
}

std::optional<instant> worker::armed_deadline() const noexcept {
    const activity_mark in_timer(&activity_, activity_slot::state::in_timer,
                                 plugin_call::timer_next_deadline);
    return timers_->next_deadline();
}

void worker::drop_timers() noexcept {
    timers_.reset();
    armed_timers_ = 0;
    no_timer_due_below_ = 0;
}

}  // namespace rtkit::detail
