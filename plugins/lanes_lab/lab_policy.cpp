#include "lab_policy.hpp"

#include <cstring>

namespace rtkit_lanes {

lab_policy::lab_policy(const rtkit::plugin_options& options)
    : lab_policy(static_cast<std::uint64_t>(options.get_int("seed")),
                 static_cast<std::size_t>(options.get_int("window"))) {}

lab_policy::lab_policy(std::uint64_t seed, std::size_t window)
    : random_(seed), window_(window < 1 ? 1 : window, nullptr) {}

void lab_policy::push(rtkit::schedulable* entry, rtkit::lane) noexcept {
    if (in_window_ < window_.size()) {  // then nothing waits: every take refills
        window_[in_window_++] = entry;
        return;
    }
    entry->lane_next = nullptr;
    if (waiting_tail_)
        waiting_tail_->lane_next = entry;
    else
        waiting_head_ = entry;
    waiting_tail_ = entry;
    ++waiting_;
}

rtkit::schedulable* lab_policy::take(std::size_t i) noexcept {
    rtkit::schedulable* entry = window_[i];
    window_[i] = window_[--in_window_];
    if (waiting_head_) {
        rtkit::schedulable* next = waiting_head_;
        waiting_head_ = next->lane_next;
        if (!waiting_head_) waiting_tail_ = nullptr;
        next->lane_next = nullptr;
        --waiting_;
        window_[in_window_++] = next;
    }
    return entry;
}

rtkit::schedulable* lab_policy::pop() noexcept {
    if (in_window_ == 0) return nullptr;
    return take(static_cast<std::size_t>(random_.below(in_window_)));
}

std::size_t lab_policy::steal(rtkit::schedulable** out, std::size_t max) noexcept {
    // From the end of the window, which the waiting entries refill; a steal
    // draws nothing from the generator.
    std::size_t taken = 0;
    while (taken < max && in_window_ > 0)
        out[taken++] = take(in_window_ - 1);
    return taken;
}

void* lab_policy::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::lanes_fairness_name) == 0)
        return static_cast<rtkit::lanes_fairness*>(this);
    return nullptr;
}

}  // namespace rtkit_lanes
