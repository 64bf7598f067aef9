#include "fifo_policy.hpp"

#include <cstring>

namespace rtkit_lanes {

void fifo_policy::push(rtkit::schedulable* entry, rtkit::lane) noexcept {
    entry->lane_next = nullptr;
    if (tail_)
        tail_->lane_next = entry;
    else
        head_ = entry;
    tail_ = entry;
    ++size_;
}

rtkit::schedulable* fifo_policy::pop() noexcept {
    rtkit::schedulable* entry = head_;
    if (!entry) return nullptr;
    head_ = entry->lane_next;
    if (!head_) tail_ = nullptr;
    entry->lane_next = nullptr;
    --size_;
    return entry;
}

std::size_t fifo_policy::steal(rtkit::schedulable** out, std::size_t max) noexcept {
    // The oldest: they have waited longest, and the thief is idle.
    std::size_t taken = 0;
    while (taken < max && head_)
        out[taken++] = pop();
    return taken;
}

void* fifo_policy::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::lanes_fairness_name) == 0)
        return static_cast<rtkit::lanes_fairness*>(this);
    return nullptr;
}

std::size_t fifo_policy::max_pops_before(rtkit::lane, std::size_t cancel_queued,
                                         std::size_t ready_queued) const noexcept {
    return cancel_queued + ready_queued;
}

}  // namespace rtkit_lanes
