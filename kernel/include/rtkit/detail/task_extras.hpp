#pragma once
// Per-task state that most tasks never need, allocated on first use.
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/outcome.hpp"

namespace rtkit::detail {

struct timeout_state;

/// Starts with the task's region (task_extras_region), which moves here from
/// the header when the extras are made.
struct task_extras : task_extras_region {
    /// The task awaiting the join handle (holding a reference), valid while
    /// the task's state has join_waker. Here rather than in the header: only
    /// a join that has to wait needs it.
    task_header* joiner = nullptr;
    /// The reason of the first cancellation request; set once, then read-only.
    std::atomic<cancel_reason*> reason{nullptr};
    /// Where spawns go while the task runs a region scope (null: its own region).
    region_node* spawn_region = nullptr;
    /// The innermost active timeout scope of the task (polling thread only).
    timeout_state* timeouts = nullptr;
    /// For a local task (task_state::local): the only thread that may poll it.
    std::thread::id local_owner;
    /// ... and, when that thread is a worker of its own (multi-thread), the
    /// handle of that worker: wakes from anywhere go there.
    handle* local_home = nullptr;
    /// What the task threw, until someone takes its outcome (note_failure).
    std::exception_ptr unobserved_failure;
    /// The task's id once someone asked for it (task_header::id), else 0.
    std::atomic<std::uint64_t> id{0};
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
