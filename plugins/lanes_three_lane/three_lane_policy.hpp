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
/// Fairness: after `cancel_streak_limit` consecutive cancel pops, one waiting
/// ready task runs before the next cancel task, and the streak restarts. So a
/// cancelled task waits behind at most the cancel tasks queued before it plus
/// one ready task per `cancel_streak_limit` of them, however many ready tasks
/// wait; and ready tasks keep running under a stream of cancellations.
class three_lane_policy final : public rtkit::lane_policy {
  public:
    explicit three_lane_policy(const rtkit::plugin_options& options);
    explicit three_lane_policy(std::uint32_t cancel_streak_limit);

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }

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
