#pragma once
// rtkit_lanes::three_lane_policy: cancel first, then woken tasks, then deferred ones, with streak
// limits.
#include <cstdint>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace rtkit_lanes {

/// Three lanes served in priority order: cancel (unwind soon), ready (woken
/// tasks, FIFO), deferred (new, yielded and spawning tasks, FIFO; the kernel
/// sorts them through rtkit.lanes_deferred.v1).
///
/// All are intrusive FIFO lists through schedulable::lane_next, so nothing
/// allocates.
///
/// Fairness, with L = `cancel_streak_limit` and M = `ready_streak_limit`:
/// after L consecutive cancel pops, a waiting ready or deferred entry runs
/// before the next cancel entry; after M consecutive ready pops, a waiting
/// deferred entry runs before the next ready one. Each streak restarts when
/// another lane gets its turn. The bounds this gives, in pops, are
/// max_pops_before() and max_pops_before_deferred() (README.md derives them).
class three_lane_policy final : public rtkit::lane_policy,
                                public rtkit::lanes_fairness,
                                public rtkit::lanes_deferred {
  public:
    explicit three_lane_policy(const rtkit::plugin_options& options);
    three_lane_policy(std::uint32_t cancel_streak_limit, std::uint32_t ready_streak_limit);

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override;
    void push_deferred(rtkit::schedulable* entry) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }

    /// rtkit.lanes_fairness.v1 and rtkit.lanes_deferred.v1.
    void* query_interface(const char* name) noexcept override;
    std::size_t max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                std::size_t ready_queued) const noexcept override;
    std::size_t max_pops_before_deferred(std::size_t cancel_queued, std::size_t ready_queued,
                                         std::size_t deferred_queued) const noexcept override;
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
    fifo deferred_;
    std::size_t size_ = 0;
    std::uint32_t cancel_streak_ = 0;  ///< consecutive cancel pops so far
    std::uint32_t ready_streak_ = 0;   ///< consecutive ready pops while a deferred entry waited
    std::uint32_t cancel_streak_limit_;
    std::uint32_t ready_streak_limit_;
};

}  // namespace rtkit_lanes
