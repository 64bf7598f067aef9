#pragma once
// rtkit::lane_policy: how a worker picks its next task. Lane plugins implement it.
#include <cstddef>
#include <cstdint>

#include "rtkit/plugin_object.hpp"

namespace rtkit {

/// Which lane a runnable task goes into.
///  - cancel: the task has a pending cancellation request and should unwind
///    soon, releasing what it holds;
///  - ready:  everything else.
/// Deadlines are the timer driver's business: a sleeping task is not queued.
enum class lane : std::uint8_t { cancel = 0, ready = 1 };

/// The intrusive part of a runnable task that a lane policy may use. While a
/// task sits in a policy's queues the policy owns both fields (a FIFO links
/// through `lane_next`; `lane_word` is free for a back link or an index), so
/// queues need no allocation. The kernel does not touch them until pop() or
/// steal() hands the task back, and never pushes a task that is queued.
struct schedulable {
    schedulable* lane_next = nullptr;
    std::uintptr_t lane_word = 0;
};

/// A per-worker scheduling policy: each worker has its own instance.
///
/// Threads: the kernel serialises every call on one instance. The worker that
/// owns it pushes, pops and promotes; in the multi-thread runtime another
/// worker may call steal() (and size()), always under a lock the kernel holds
/// around every call on this instance, so the policy itself needs no
/// synchronisation. No method blocks, throws or allocates.
///
/// Who calls what: the kernel pushes a task when it becomes runnable (spawned,
/// woken, yielding), into `cancel` once its cancellation was requested; pops
/// the next task whenever its worker dispatches; promotes a queued task when a
/// cancellation request reaches it; and a worker that has run dry steals about
/// half of another's ready tasks.
class lane_policy : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_LANES, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Makes `task` runnable in lane `which`. `task` is not queued here now.
    virtual void push(schedulable* task, lane which) noexcept = 0;

    /// The next task to run, or nullptr when every lane is empty. The policy
    /// owns fairness between the lanes (for example how many cancel tasks may
    /// run before a waiting ready task gets its turn); its README states it.
    virtual schedulable* pop() noexcept = 0;

    /// Moves `task`, queued in this policy's ready lane, to the cancel lane:
    /// its cancellation was requested while it waited. The kernel calls it
    /// only for a task it pushed into `ready` here and has not had back.
    virtual void promote(schedulable* task) noexcept = 0;

    /// Gives up to `max` ready-lane tasks to a thief, writing them to `out`,
    /// and returns how many. Cancel-lane tasks stay with their worker.
    virtual std::size_t steal(schedulable** out, std::size_t max) noexcept = 0;

    /// How many tasks are queued in all lanes.
    virtual std::size_t size() const noexcept = 0;
};

}  // namespace rtkit
