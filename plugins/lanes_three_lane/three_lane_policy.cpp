#include "three_lane_policy.hpp"

#include <cstring>

namespace rtkit_lanes {

three_lane_policy::three_lane_policy(const rtkit::plugin_options& options)
    : three_lane_policy(static_cast<std::uint32_t>(options.get_int("cancel_streak_limit")),
                        static_cast<std::uint32_t>(options.get_int("ready_streak_limit"))) {}

three_lane_policy::three_lane_policy(std::uint32_t cancel_streak_limit,
                                     std::uint32_t ready_streak_limit)
    : cancel_streak_limit_(cancel_streak_limit), ready_streak_limit_(ready_streak_limit) {}

void three_lane_policy::push(rtkit::schedulable* entry, rtkit::lane which) noexcept {
    if (which == rtkit::lane::cancel)
        cancel_.push(entry);
    else
        ready_.push(entry);
    ++size_;
}

void three_lane_policy::push_deferred(rtkit::schedulable* entry) noexcept {
    deferred_.push(entry);
    ++size_;
}

rtkit::schedulable* three_lane_policy::pop() noexcept {
    if (cancel_.head) [[unlikely]] {
        if (cancel_streak_ < cancel_streak_limit_ || (!ready_.head && !deferred_.head)) {
            ++cancel_streak_;
            --size_;
            return cancel_.pop();
        }
    }
    // No cancel entry waits, or its streak is spent and other work gets a
    // turn (a pop that finds nothing leaves the streaks as they are).
    if (ready_.head && (ready_streak_ < ready_streak_limit_ || !deferred_.head)) {
        cancel_streak_ = 0;
        // This streak counts only while a deferred entry waits for its turn.
        ready_streak_ = deferred_.head ? ready_streak_ + 1 : 0;
        --size_;
        return ready_.pop();
    }
    if (!deferred_.head) return nullptr;
    cancel_streak_ = 0;
    ready_streak_ = 0;
    --size_;
    return deferred_.pop();
}

std::size_t three_lane_policy::steal(rtkit::schedulable** out, std::size_t max) noexcept {
    std::size_t taken = 0;
    // In the order this worker would run them: a thief has run dry, so it
    // unwinds a cancelled task, or runs a woken one, sooner than this busy
    // worker would.
    for (fifo* lane : {&cancel_, &ready_, &deferred_})
        while (taken < max && lane->head)
            out[taken++] = lane->pop();
    size_ -= taken;
    return taken;
}

void* three_lane_policy::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::lanes_fairness_name) == 0)
        return static_cast<rtkit::lanes_fairness*>(this);
    if (std::strcmp(name, rtkit::lanes_deferred_name) == 0)
        return static_cast<rtkit::lanes_deferred*>(this);
    return nullptr;
}

std::size_t three_lane_policy::max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                               std::size_t ready_queued) const noexcept {
    const std::size_t cancel_limit = cancel_streak_limit_;
    if (which == rtkit::lane::cancel) return cancel_queued + 1 + cancel_queued / cancel_limit;
    // The ready entries ahead, and the deferred entries that get a turn among
    // them (one first, if the streak was spent, then one per ready_streak_limit);
    // before each of those, and before this one, up to cancel_limit cancel pops.
    const std::size_t deferred_turns = 1 + ready_queued / ready_streak_limit_;
    const std::size_t others = ready_queued + deferred_turns;
    return others + (others + 1) * cancel_limit;
}

std::size_t three_lane_policy::max_pops_before_deferred(
    std::size_t, std::size_t, std::size_t deferred_queued) const noexcept {
    // Its turn comes after the deferred entries ahead, each behind at most
    // ready_streak_limit ready pops; before every one of those non-cancel
    // pops, this one's included, up to cancel_streak_limit cancel pops.
    const std::size_t turns = (deferred_queued + 1) * (std::size_t{ready_streak_limit_} + 1);
    return turns * (std::size_t{cancel_streak_limit_} + 1) - 1;
}

}  // namespace rtkit_lanes
