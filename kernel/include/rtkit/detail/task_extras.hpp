#pragma once
// Per-task state that most tasks never need, allocated on first use.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/outcome.hpp"
#include "rtkit/task.hpp"

namespace rtkit::detail {

struct timeout_state;

/// A task's second lane entry. A cancellation request that finds the task
/// waiting in a ready lane queues this in the cancel lane of the same worker
/// (worker::promote), so the task unwinds promptly. The task is then queued
/// twice: whichever entry leaves its lane first is the task's, and the other
/// is dropped when it comes out (kernel/src/lane_entries.hpp).
struct cancel_stand_in : lane_entry {
    /// Which of the task's entries are queued as twins.
    enum class twins : std::uint8_t {
        none,               ///< at most one entry is queued, and it is live
        both_queued,        ///< promoted: the first to come out runs the task
        own_is_stale,       ///< the stand-in came out first; the task's entry is to be dropped
        stand_in_is_stale,  ///< the task's entry came out first; this one is to be dropped
        /// The task's frame was destroyed while its stale entry still waited
        /// in a lane: the frame's memory (and the extras) are kept for the
        /// lane until that entry comes out, which frees them.
        own_is_stale_frame_gone,
        /// The same for a stale stand-in: the extras are kept.
        stand_in_is_stale_frame_gone,
    };
    cancel_stand_in(task_header* of, task_extras* in) noexcept : task(of), extras(in) {
        state.store(task_state::stand_in, std::memory_order_relaxed);
    }
    task_header* const task;
    task_extras* const extras;  ///< the extras this stand-in is part of
    std::atomic<twins> queued{twins::none};
    /// Once the frame's memory is kept for a stale entry: its size.
    std::size_t kept_frame_size = 0;
};

/// Starts with the task's region (task_extras_region), which moves here from
/// the header when the extras are made.
struct task_extras : task_extras_region {
    /// The task awaiting the join handle (holding a reference), valid while
    /// the task's state has join_waker. Here rather than in the header: only
    /// a join that has to wait needs it. A new joiner and the completion may
    /// take it out at once, so both exchange it, and the one that gets a
    /// joiner out owns its reference.
    std::atomic<task_header*> joiner{nullptr};
    /// The reason of the first cancellation request; set once, then read-only.
    std::atomic<cancel_reason*> reason{nullptr};
    /// Where spawns go while the task runs a region scope (null: its own region).
    region_node* spawn_region = nullptr;
    /// The innermost active timeout scope of the task (polling thread only).
    timeout_state* timeouts = nullptr;
    /// For a local task (task_state::local): the only thread that may poll it.
    std::thread::id local_owner;
    /// ... and, when that thread is a worker of its own (multi-thread), the
    /// handle of that worker: wakes from anywhere go there (handle::route).
    handle* local_home = nullptr;
    /// What the task threw, until someone takes its outcome (note_failure).
    std::exception_ptr unobserved_failure;
    /// The task's id once someone asked for it (task_header::id), else 0.
    std::atomic<std::uint64_t> id{0};
    /// Traces only: the task's name and spawn site ("file:line"), interned by
    /// the runtime's trace recorder, or null.
    const std::string* trace_name = nullptr;
    const std::string* trace_site = nullptr;
    /// Traces only: the flow id of the last wake not yet followed by a poll.
    std::atomic<std::uint64_t> trace_flow{0};
    /// Traced tasks only (task_state::traced): how many wakers of the task
    /// exist, and whether its last poll ended in a wait that only a waker can
    /// end (kernel/src/lost_wakes.hpp).
    std::atomic<std::uint32_t> trace_wakers{0};
    std::atomic<std::uint8_t> trace_wait{0};
    /// The task's second lane entry, used once a cancellation was requested.
    cancel_stand_in stand_in;
    explicit task_extras(task_header* of) noexcept : stand_in(of, this) {}
    // From the frame allocator's per-thread pools, like the frames: every join
    // that waits makes a task's extras, and malloc cost that join about 20 ns.
    static void* operator new(std::size_t size) { return allocate_frame(size); }
    static void operator delete(void* extras, std::size_t size) noexcept {
        free_frame(extras, size);
    }
    ~task_extras() { delete reason.load(std::memory_order_acquire); }
};

inline task_extras* task_header::extras() const noexcept {
    const std::uintptr_t word = region_or_extras_.load(std::memory_order_acquire);
    if (!word || (word & region_tag)) return nullptr;
    return static_cast<task_extras*>(reinterpret_cast<task_extras_region*>(word));
}

inline void task_header::set_region(region_node* region) noexcept {
    static_assert(alignof(region_node) > region_tag,
                  "a region's address must leave the tag bit free");
    if (task_extras* owned_extras = extras())
        owned_extras->region = region;
    else
        region_or_extras_.store(reinterpret_cast<std::uintptr_t>(region) | region_tag,
                                std::memory_order_relaxed);
}

/// Where spawns from `task` go now: its region, or the region scope it is in.
inline region_node& spawn_region_of(task_header& task) noexcept {
    if (task_extras* extras = task.extras())
        if (extras->spawn_region) return *extras->spawn_region;
    return *task.region();
}

/// Records `reason` as the task's cancellation reason unless one is already set.
void set_cancel_reason(task_header& task, cancel_reason reason);

}  // namespace rtkit::detail
