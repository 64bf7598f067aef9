#pragma once
// rtkit_lanes::fifo_policy: one FIFO for both lanes, the baseline policy.
#include <cstddef>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace rtkit_lanes {

/// Every entry in one intrusive FIFO through schedulable::lane_next, whatever
/// its lane: a task with a pending cancellation is not put first. An entry
/// waits for exactly the entries queued before it.
class fifo_policy final : public rtkit::lane_policy, public rtkit::lanes_fairness {
  public:
    explicit fifo_policy(const rtkit::plugin_options&) {}
    fifo_policy() = default;

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return size_; }

    void* query_interface(const char* name) noexcept override;
    std::size_t max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                std::size_t ready_queued) const noexcept override;
    std::size_t random_window() const noexcept override { return 0; }

  private:
    rtkit::schedulable* head_ = nullptr;
    rtkit::schedulable* tail_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace rtkit_lanes
