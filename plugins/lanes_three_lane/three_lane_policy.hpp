#pragma once
// rtkit_lanes::three_lane_policy: the cancel lane first, then ready, with a streak limit.
#include <cstdint>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace rtkit_lanes {

/// Two lanes served in priority order: cancel (unwind soon), then ready (FIFO).
///
/// Both are intrusive FIFO lists, so nothing allocates. The ready list is
/// doubly linked (schedulable::lane_word holds the back link), so promote()
/// moves a queued task to the cancel lane in O(1).
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

    void push(rtkit::schedulable* task, rtkit::lane which) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    void promote(rtkit::schedulable* task) noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }

  private:
    /// An intrusive FIFO. With `doubly_linked`, lane_word holds the previous
    /// task, so any queued task can be unlinked. The head's back link is left
    /// stale: popping then writes only the popped task, not the next one,
    /// whose frame a spawn-heavy worker has long evicted from the cache.
    template <bool doubly_linked>
    struct fifo {
        rtkit::schedulable* head = nullptr;
        rtkit::schedulable* tail = nullptr;

        /// The task before `t`, which is not the head.
        static rtkit::schedulable* prev(const rtkit::schedulable* t) noexcept {
            return reinterpret_cast<rtkit::schedulable*>(t->lane_word);
        }
        static void set_prev(rtkit::schedulable* t, rtkit::schedulable* p) noexcept {
            t->lane_word = reinterpret_cast<std::uintptr_t>(p);
        }
        void push(rtkit::schedulable* task) noexcept {
            task->lane_next = nullptr;
            if constexpr (doubly_linked) set_prev(task, tail);
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
        void unlink(rtkit::schedulable* task) noexcept {
            static_assert(doubly_linked, "unlinking needs the back links");
            if (task == head) {
                pop();
                return;
            }
            rtkit::schedulable* next = task->lane_next;
            rtkit::schedulable* before = prev(task);
            before->lane_next = next;
            if (next)
                set_prev(next, before);
            else
                tail = before;
            task->lane_next = nullptr;
        }
    };

    fifo<false> cancel_;
    fifo<true> ready_;
    std::size_t size_ = 0;
    std::uint32_t cancel_streak_ = 0;  ///< consecutive cancel pops so far
    std::uint32_t cancel_streak_limit_;
};

}  // namespace rtkit_lanes
