#pragma once
// How a block_on root's caller learns that the root was woken: the root's
// wakes set task_state::root_woken in its state word (wake_task) instead of
// queueing it, and both drivers read and wait on that flag the same way.
#include <atomic>
#include <cstdint>

#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

inline bool root_wake_pending(const task_header* root) noexcept {
    return root->state.load(std::memory_order_seq_cst) & task_state::root_woken;
}
/// Clears the flag; true if it was set.
inline bool take_root_wake(task_header* root) noexcept {
    return root->state.fetch_and(~task_state::root_woken, std::memory_order_acq_rel) &
           task_state::root_woken;
}
/// Sets it from the caller's own thread (a root that yielded polls again).
inline void set_root_wake(task_header* root) noexcept {
    root->state.fetch_or(task_state::root_woken, std::memory_order_relaxed);
}
/// Blocks the calling thread until the flag is set (wake_task notifies the word).
inline void wait_root_wake(task_header* root) noexcept {
    std::uint64_t s = root->state.load(std::memory_order_acquire);
    while (!(s & task_state::root_woken)) {
        root->state.wait(s, std::memory_order_acquire);
        s = root->state.load(std::memory_order_acquire);
    }
}

}  // namespace rtkit::detail
