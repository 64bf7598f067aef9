#pragma once
// A task's entries in the queues (lanes, injector, inboxes): the task itself,
// and once a cancellation request found it waiting in a ready lane, its
// cancel_stand_in too. Which entry to queue, and what an entry stands for.
#include <cstdint>

#include "rtkit/detail/task_extras.hpp"

namespace rtkit::detail {

/// A task queued twice has a stale entry after the first came out; this is
/// the rare path of entry_to_queue.
schedulable* entry_to_queue_cancelled(task_header* task) noexcept;
/// The rare path of task_leaving_lane: a stand-in, or a cancelled task's entry.
task_header* settle_twins(lane_entry* entry, std::uint64_t state) noexcept;

/// The entry to queue `task` through, given its state word: its own, unless
/// that one is still queued as the stale twin of its stand-in. The caller
/// won the right to queue the task (task_state::scheduled, or its poll).
inline schedulable* entry_to_queue(task_header* task, std::uint64_t state) noexcept {
    if (!(state & task_state::cancel_requested)) [[likely]]
        return task;
    return entry_to_queue_cancelled(task);
}
inline schedulable* entry_to_queue(task_header* task) noexcept {
    return entry_to_queue(task, task->state.load(std::memory_order_relaxed));
}

/// The task an entry from the injector or an inbox stands for (such an entry
/// is never stale: only lanes hold twins).
inline task_header* task_of_entry(schedulable* s) noexcept {
    auto* entry = static_cast<lane_entry*>(s);
    if (entry->state.load(std::memory_order_relaxed) & task_state::stand_in) [[unlikely]]
        return static_cast<cancel_stand_in*>(entry)->task;
    return static_cast<task_header*>(entry);
}

/// For an entry that has just left a lane (popped or stolen), whose state word
/// read `state` while the lane was held: the task to run, or nullptr when the
/// entry was the stale twin of one that came out before (it is dropped here,
/// with the memory kept for it if the task's frame is gone already).
inline task_header* task_leaving_lane(schedulable* s, std::uint64_t state) noexcept {
    auto* entry = static_cast<lane_entry*>(s);
    if (!(state & (task_state::stand_in | task_state::cancel_requested))) [[likely]]
        return static_cast<task_header*>(entry);
    return settle_twins(entry, state);
}

/// Whether an entry that has just left a lane (its state word read as for
/// task_leaving_lane) belongs to a local task (spawn_local). Safe on a stale
/// entry: what it reads is kept for it.
inline bool is_local_task_entry(schedulable* s, std::uint64_t state) noexcept {
    if (state & task_state::stand_in) [[unlikely]]
        return static_cast<cancel_stand_in*>(s)->extras->local_owner != std::thread::id{};
    return state & task_state::local;
}

/// Queues `task`'s stand-in as its twin (worker::promote, under the lanes
/// that hold the task's own entry): returns the stand-in to push; nullptr
/// when the task has no extras (then it was never asked to cancel through a
/// request).
schedulable* make_twin(task_header* task) noexcept;

/// Destroys the frame of a task whose references are gone. A stale entry of
/// it may still wait in a lane, pointing into the frame (its own entry) or
/// the extras (its stand-in): that memory is then kept, and the entry frees
/// it when it comes out. The frame's contents go now either way, so its
/// parameters are destroyed when the last reference goes, as for any task.
/// Returns true when the extras were left to such an entry.
bool destroy_frame_leaving_stale_twin(task_header& task, task_extras& extras);

}  // namespace rtkit::detail
