#include "three_lane_policy.hpp"

#include <algorithm>

namespace rtkit_lanes {
namespace {

/// std heap functions keep the largest on top: "later" ranks lower.
struct runs_later {
    template <class T>
    bool operator()(const T& a, const T& b) const noexcept {
        return a.deadline != b.deadline ? a.deadline > b.deadline : a.sequence > b.sequence;
    }
};

}  // namespace

three_lane_policy::three_lane_policy(const rtkit::plugin_options& options)
    : three_lane_policy(static_cast<std::uint32_t>(options.get_int("cancel_streak_limit")),
                        static_cast<std::uint32_t>(options.get_int("timed_streak_limit"))) {}

three_lane_policy::three_lane_policy(std::uint32_t cancel_streak_limit,
                                     std::uint32_t timed_streak_limit)
    : cancel_streak_limit_(cancel_streak_limit), timed_streak_limit_(timed_streak_limit) {}

void three_lane_policy::push(rtkit::schedulable* task, rtkit::lane which, rtkit::instant deadline) {
    switch (which) {
        case rtkit::lane::ready:
            ready_.push(task);
            break;
        case rtkit::lane::cancel:
            cancel_.push(task);
            break;
        case rtkit::lane::timed: {
            const std::int64_t key = deadline.time_since_epoch().count();
            timed_.push_back({key, timed_sequence_++, task});  // may throw: nothing changed yet
            std::push_heap(timed_.begin(), timed_.end(), runs_later{});
            task->lane_key = key;
            break;
        }
    }
    ++size_;
}

rtkit::schedulable* three_lane_policy::pop_timed() noexcept {
    std::pop_heap(timed_.begin(), timed_.end(), runs_later{});
    rtkit::schedulable* task = timed_.back().task;
    timed_.pop_back();
    return task;
}

rtkit::schedulable* three_lane_policy::pop(rtkit::instant now) noexcept {
    // The common case, ready work only, costs two tests before the list pop.
    if (!cancel_.head && timed_.empty()) [[likely]] {
        if (!ready_.head) return nullptr;
        cancel_streak_ = 0;
        timed_streak_ = 0;
        --size_;
        return ready_.pop();
    }
    const bool due = timed_due(now);
    if (cancel_.head && (cancel_streak_ < cancel_streak_limit_ || (!due && !ready_.head))) {
        ++cancel_streak_;
        --size_;
        return cancel_.pop();
    }
    // Either no cancel task waits, or its streak is spent and other work gets a turn.
    if (due && (timed_streak_ < timed_streak_limit_ || !ready_.head)) {
        cancel_streak_ = 0;
        ++timed_streak_;
        --size_;
        return pop_timed();
    }
    if (ready_.head) {
        cancel_streak_ = 0;
        timed_streak_ = 0;
        --size_;
        return ready_.pop();
    }
    return nullptr;
}

std::size_t three_lane_policy::steal(rtkit::schedulable** out, std::size_t max) noexcept {
    std::size_t taken = 0;
    while (taken < max && ready_.head)
        out[taken++] = ready_.pop();
    size_ -= taken;
    return taken;
}

std::optional<rtkit::instant> three_lane_policy::next_deadline() const noexcept {
    if (timed_.empty()) return std::nullopt;
    return rtkit::instant(rtkit::duration(timed_.front().deadline));
}

}  // namespace rtkit_lanes
