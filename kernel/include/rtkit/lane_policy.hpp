#pragma once
// rtkit::lane_policy: how a worker picks its next task. Lane plugins implement it.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rtkit/plugin_object.hpp"
#include "rtkit/time.hpp"

namespace rtkit {

/// Which lane a runnable task goes into.
///  - cancel: the task has a pending cancellation request and should unwind soon;
///  - timed:  the task must not run before its deadline, and runs earliest first;
///  - ready:  everything else.
enum class lane : std::uint8_t { cancel = 0, timed = 1, ready = 2 };

/// The intrusive part of a runnable task that a lane policy may use. While a
/// task sits in a policy's queues, the policy owns `lane_next` and `lane_key`
/// (so queues need no allocation); the kernel does not touch them until pop()
/// or steal() hands the task back. The kernel never pushes a task twice.
struct schedulable {
    schedulable* lane_next = nullptr;
    std::int64_t lane_key = 0;
};

/// A per-worker scheduling policy.
///
/// Threads: only the owning worker calls it, and never concurrently; a thief's
/// steal() call is made by the kernel under the victim's own synchronisation.
/// No method blocks or throws except where noted.
class lane_policy : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_LANES, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Makes `task` runnable in lane `which`. For the timed lane, `deadline` is
    /// the earliest instant it may run; other lanes ignore it. May allocate for
    /// the timed lane only (throws std::bad_alloc).
    virtual void push(schedulable* task, lane which, instant deadline) = 0;

    /// The next task to run, or nullptr when no lane has an eligible task.
    /// `now` decides which timed tasks are due. The policy owns fairness between
    /// lanes (for example how many cancel tasks may run before a ready one).
    virtual schedulable* pop(instant now) noexcept = 0;

    /// Gives up to `max` ready-lane tasks to a thief, writing them to `out`.
    /// Returns how many. Cancel and timed tasks are never given away.
    virtual std::size_t steal(schedulable** out, std::size_t max) noexcept = 0;

    /// How many tasks are queued in all lanes.
    virtual std::size_t size() const noexcept = 0;

    /// The earliest deadline in the timed lane, if any (the worker parks no
    /// longer than that).
    virtual std::optional<instant> next_deadline() const noexcept = 0;
};

}  // namespace rtkit
