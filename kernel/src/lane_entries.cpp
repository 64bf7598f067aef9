#include "lane_entries.hpp"

#include <utility>

#include "rtkit/task.hpp"

namespace rtkit::detail {

using twins = cancel_stand_in::twins;

schedulable* entry_to_queue_cancelled(task_header* task) noexcept {
    task_extras* const extras = task->extras();
    // Acquire: when the stale entry was dropped meanwhile, the lane's last
    // writes to it come before this queue's.
    if (extras && extras->stand_in.queued.load(std::memory_order_acquire) == twins::own_is_stale)
        return &extras->stand_in;
    return task;
}

task_header* settle_twins(lane_entry* entry, std::uint64_t state) noexcept {
    const bool is_stand_in = state & task_state::stand_in;
    // A stale entry may outlive its task's frame, so the task is not read
    // until this entry is known to be live (a stale own entry's header
    // memory is kept, and read here only for where its extras are).
    task_header* task;
    task_extras* extras;
    if (is_stand_in) {
        auto* stand_in = static_cast<cancel_stand_in*>(entry);
        task = stand_in->task;
        extras = stand_in->extras;
    } else {
        task = static_cast<task_header*>(entry);
        extras = task->extras();
        if (!extras) return task;  // never promoted
    }
    const twins this_is_stale = is_stand_in ? twins::stand_in_is_stale : twins::own_is_stale;
    const twins other_is_stale = is_stand_in ? twins::own_is_stale : twins::stand_in_is_stale;
    const twins this_is_stale_frame_gone =
        is_stand_in ? twins::stand_in_is_stale_frame_gone : twins::own_is_stale_frame_gone;
    std::atomic<twins>& queued = extras->stand_in.queued;
    twins now = queued.load(std::memory_order_acquire);
    for (;;) {
        if (now == twins::both_queued) {
            // The first of two twins to come out (from different workers'
            // lanes, when one of them was stolen) is the task's.
            if (queued.compare_exchange_weak(now, other_is_stale, std::memory_order_acq_rel,
                                             std::memory_order_acquire))
                return task;
        } else if (now == this_is_stale) {
            // Dropped while the task lives; from now on it may be queued
            // through this entry again.
            if (queued.compare_exchange_weak(now, twins::none, std::memory_order_acq_rel,
                                             std::memory_order_acquire))
                return nullptr;
        } else if (now == this_is_stale_frame_gone) {
            // The last of the task: what was kept for this entry goes.
            if (!is_stand_in) free_frame(task->frame().address(), extras->stand_in.kept_frame_size);
            delete extras;
            return nullptr;
        } else {
            return task;
        }
    }
}

schedulable* make_twin(task_header* task) noexcept {
    task_extras* const extras = task->extras();
    if (!extras) return nullptr;
    extras->stand_in.queued.store(twins::both_queued, std::memory_order_relaxed);
    return &extras->stand_in;
}

bool destroy_frame_leaving_stale_twin(task_header& task, task_extras& extras) {
    std::atomic<twins>& queued = extras.stand_in.queued;
    twins now = queued.load(std::memory_order_acquire);
    if (now != twins::own_is_stale && now != twins::stand_in_is_stale) {
        task.frame().destroy();
        return false;
    }
    const bool own_is_stale = now == twins::own_is_stale;
    void* const frame = task.frame().address();
    if (own_is_stale) {
        // The stale entry is the task's header, in the frame: destroy what
        // the frame holds but keep its memory. Destroying it may destroy
        // another such frame on this thread (a join handle it holds), so the
        // slot is restored, not cleared, and the size read right after: this
        // frame's operator delete is the last thing its destruction does.
        struct keeping {
            explicit keeping(void* frame) noexcept
                : outer(std::exchange(frame_to_keep_slot, frame)) {}
            ~keeping() { frame_to_keep_slot = outer; }
            void* const outer;
        } memory_kept(frame);
        task.frame().destroy();
        extras.stand_in.kept_frame_size = kept_frame_size_slot;
    } else {
        task.frame().destroy();
    }
    // Hand what is kept to the stale entry, unless it came out meanwhile.
    const twins gone =
        own_is_stale ? twins::own_is_stale_frame_gone : twins::stand_in_is_stale_frame_gone;
    if (queued.compare_exchange_strong(now, gone, std::memory_order_acq_rel,
                                       std::memory_order_acquire))
        return true;
    if (own_is_stale) free_frame(frame, extras.stand_in.kept_frame_size);
    return false;
}

}  // namespace rtkit::detail
