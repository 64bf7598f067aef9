#include "three_lane_policy.hpp"

#include <cstring>

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

void* three_lane_policy::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::lanes_fairness_name) == 0)
        return static_cast<rtkit::lanes_fairness*>(this);
    return nullptr;
}

std::size_t three_lane_policy::max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                               std::size_t ready_queued) const noexcept {
    const std::size_t limit = cancel_streak_limit_;
    if (which == rtkit::lane::cancel) return cancel_queued + 1 + cancel_queued / limit;
    return ready_queued + (ready_queued + 1) * limit;
}

}  // namespace rtkit_lanes
