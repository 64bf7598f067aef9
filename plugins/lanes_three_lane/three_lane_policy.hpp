#pragma once
// rtkit_lanes::three_lane_policy: cancel, then timed, then ready, with streak limits.
#include <cstdint>
#include <optional>
#include <vector>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace rtkit_lanes {

/// Three lanes served in priority order: cancel (unwind soon), timed (due
/// deadlines, earliest first), ready (FIFO).
///
/// Cancel and ready are intrusive FIFO lists through schedulable::lane_next, so
/// they never allocate. The timed lane is a binary heap keyed by the deadline
/// (also stored in lane_key) with an insertion counter breaking ties, so tasks
/// due at the same instant run in push order.
///
/// Fairness: after `cancel_streak_limit` consecutive cancel pops, one due-timed
/// or ready task runs before the next cancel task (if one waits); likewise after
/// `timed_streak_limit` consecutive timed pops, a ready task runs first.
class three_lane_policy final : public rtkit::lane_policy {
  public:
    explicit three_lane_policy(const rtkit::plugin_options& options);
    three_lane_policy(std::uint32_t cancel_streak_limit, std::uint32_t timed_streak_limit);

    void push(rtkit::schedulable* task, rtkit::lane which, rtkit::instant deadline) override;
    rtkit::schedulable* pop(rtkit::instant now) noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }
    std::optional<rtkit::instant> next_deadline() const noexcept override;

  private:
    /// An intrusive singly linked FIFO.
    struct fifo {
        rtkit::schedulable* head = nullptr;
        rtkit::schedulable* tail = nullptr;

        void push(rtkit::schedulable* task) noexcept {
            task->lane_next = nullptr;
            if (tail)
                tail->lane_next = task;
            else
                head = task;
            tail = task;
        }
        rtkit::schedulable* pop() noexcept {
            rtkit::schedulable* task = head;
            head = task->lane_next;
            if (!head) tail = nullptr;
            task->lane_next = nullptr;
            return task;
        }
    };
    struct timed_item {
        std::int64_t deadline;
        std::uint64_t sequence;  ///< push order, for FIFO among equal deadlines
        rtkit::schedulable* task;
    };

    bool timed_due(rtkit::instant now) const noexcept {
        return !timed_.empty() && timed_.front().deadline <= now.time_since_epoch().count();
    }
    rtkit::schedulable* pop_timed() noexcept;

    fifo cancel_;
    fifo ready_;
    std::vector<timed_item> timed_;  ///< min-heap by (deadline, sequence)
    std::uint64_t timed_sequence_ = 0;
    std::size_t size_ = 0;
    std::uint32_t cancel_streak_ = 0;  ///< consecutive cancel pops so far
    std::uint32_t timed_streak_ = 0;   ///< consecutive timed pops so far
    std::uint32_t cancel_streak_limit_;
    std::uint32_t timed_streak_limit_;
};

}  // namespace rtkit_lanes
