#include "three_lane_policy.hpp"

namespace rtkit_lanes {

three_lane_policy::three_lane_policy(const rtkit::plugin_options& options)
    : three_lane_policy(static_cast<std::uint32_t>(options.get_int("cancel_streak_limit"))) {}

three_lane_policy::three_lane_policy(std::uint32_t cancel_streak_limit)
    : cancel_streak_limit_(cancel_streak_limit) {}

void three_lane_policy::push(rtkit::schedulable* entry, rtkit::lane which) noexcept {
    if (which == rtkit::lane::cancel)
        cancel_.push(entry);
    else
        ready_.push(entry);
    ++size_;
}

rtkit::schedulable* three_lane_policy::pop() noexcept {
    // The common case, ready work only, costs one test before the list pop.
    if (cancel_.head && (cancel_streak_ < cancel_streak_limit_ || !ready_.head)) {
        ++cancel_streak_;
        --size_;
        return cancel_.pop();
    }
    // No cancel task waits, or its streak is spent and a ready task gets a turn.
    if (!ready_.head) return nullptr;
    cancel_streak_ = 0;
    --size_;
    return ready_.pop();
}

std::size_t three_lane_policy::steal(rtkit::schedulable** out, std::size_t max) noexcept {
    std::size_t taken = 0;
    // The cancel lane first: a thief has run dry, so it unwinds them sooner
    // than this busy worker would.
    while (taken < max && cancel_.head)
        out[taken++] = cancel_.pop();
    while (taken < max && ready_.head)
        out[taken++] = ready_.pop();
    size_ -= taken;
    return taken;
}

}  // namespace rtkit_lanes
