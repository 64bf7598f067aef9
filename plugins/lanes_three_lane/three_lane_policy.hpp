#pragma once
// rtkit_lanes::three_lane_policy: the cancel lane first, then ready, with a streak limit.
#include <cstdint>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace rtkit_lanes {

/// Two lanes served in priority order: cancel (unwind soon), then ready (FIFO).
///
/// Both are intrusive FIFO lists through schedulable::lane_next, so nothing
/// allocates.
///
/// Fairness: after `cancel_streak_limit` (L) consecutive cancel pops, one
/// waiting ready task runs before the next cancel task, and the streak
/// restarts. So a cancel entry with c entries ahead in its lane waits at most
/// c + 1 + c / L pops (the cancel entries ahead, one ready task per L of them,
/// and one more if the streak was spent when it came), however many ready
/// tasks wait; and a ready entry with r ahead in its lane waits at most
/// r + (r + 1) * L pops, however many cancellations stream in.
class three_lane_policy final : public rtkit::lane_policy, public rtkit::lanes_fairness {
  public:
    explicit three_lane_policy(const rtkit::plugin_options& options);
    explicit three_lane_policy(std::uint32_t cancel_streak_limit);

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }

    /// The bound stated above, through rtkit.lanes_fairness.v1.
    void* query_interface(const char* name) noexcept override;
    std::size_t max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                std::size_t ready_queued) const noexcept override;
    std::size_t random_window() const noexcept override { return 0; }

  private:
    /// An intrusive FIFO.
    struct fifo {
        rtkit::schedulable* head = nullptr;
        rtkit::schedulable* tail = nullptr;

        void push(rtkit::schedulable* entry) noexcept {
            entry->lane_next = nullptr;
            if (tail)
                tail->lane_next = entry;
            else
                head = entry;
            tail = entry;
        }
        rtkit::schedulable* pop() noexcept {
            rtkit::schedulable* entry = head;
            head = entry->lane_next;
            if (!head) tail = nullptr;
            entry->lane_next = nullptr;
            return entry;
        }
    };

    fifo cancel_;
    fifo ready_;
    std::size_t size_ = 0;
    std::uint32_t cancel_streak_ = 0;  ///< consecutive cancel pops so far
    std::uint32_t cancel_streak_limit_;
};

}  // namespace rtkit_lanes
