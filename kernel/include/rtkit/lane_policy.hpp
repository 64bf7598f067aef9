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
/// task sits in a policy's queues the policy owns `lane_next` (a FIFO links
/// through it), so queues need no allocation. The kernel does not touch it
/// until pop() or steal() hands the entry back, and never pushes an entry
/// that is queued.
struct schedulable {
    schedulable* lane_next = nullptr;
};

/// A per-worker scheduling policy: each worker has its own instance.
///
/// Threads: the kernel serialises every call on one instance. The worker that
/// owns it pushes and pops; in the multi-thread runtime another
/// worker may call steal() (and size()), always under a lock the kernel holds
/// around every call on this instance, so the policy itself needs no
/// synchronisation. No method blocks, throws or allocates.
///
/// Who calls what: the kernel pushes a task when it becomes runnable (spawned,
/// woken, yielding), into `cancel` once its cancellation was requested; pops
/// the next entry whenever its worker dispatches; and a worker that has run
/// dry steals about half of another's entries.
///
/// A cancellation request that finds a task waiting in `ready` pushes a
/// second entry for it into `cancel`, so it unwinds promptly however many
/// ready tasks are ahead of it. The task is then queued twice; whichever entry
/// comes out first runs it, and the kernel drops the other when it comes out.
/// A policy needs to know nothing about this: every entry is an ordinary
/// push, and each comes back exactly once, through pop() or steal().
class lane_policy : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_LANES, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Queues `entry` in lane `which`. `entry` is not queued anywhere now.
    virtual void push(schedulable* entry, lane which) noexcept = 0;

    /// The next entry to run, or nullptr when every lane is empty. The policy
    /// owns fairness between the lanes (for example how many cancel tasks may
    /// run before a waiting ready task gets its turn); its README states it.
    virtual schedulable* pop() noexcept = 0;

    /// Gives up to `max` entries to a thief, writing them to `out`, and
    /// returns how many. The kernel asks for about half of size(), and a
    /// policy should hand over a batch: at least half of min(max, size()),
    /// rounded up (the conformance suite checks it). Entries of any lane may
    /// go: the thief queues each again in its own lanes, a task with a pending
    /// cancellation into its cancel lane. (A local task, which runs only on
    /// its own worker, is pushed here again, at the back of its lane.) A
    /// policy that gives nothing while it holds entries leaves the thief idle;
    /// the kernel then asks this instance again only after its next push.
    virtual std::size_t steal(schedulable** out, std::size_t max) noexcept = 0;

    /// How many entries are queued in all lanes.
    virtual std::size_t size() const noexcept = 0;
};

/// The name under which a lane policy answers query_interface() with a
/// lanes_fairness*.
inline constexpr const char* lanes_fairness_name = "rtkit.lanes_fairness.v1";

/// An extension of lane_policy (version 1): what the policy promises about
/// how long an entry waits, counted in pops, so that a test can hold it to
/// that (the lanes conformance suite does). The kernel never asks. Any
/// thread; the answers depend only on the arguments and the policy's options.
class lanes_fairness {
  public:
    /// max_pops_before()'s answer for a policy that promises no bound.
    static constexpr std::size_t no_bound = SIZE_MAX;

    /// The most pop()s that return other entries between an entry's push into
    /// `which` and the pop() that returns it, when `cancel_queued` and
    /// `ready_queued` entries were queued in the two lanes at its push,
    /// whatever is pushed after it (steal() only takes entries away), or
    /// no_bound. A FIFO's is cancel_queued + ready_queued.
    virtual std::size_t max_pops_before(lane which, std::size_t cancel_queued,
                                        std::size_t ready_queued) const noexcept = 0;

    /// 0 when pop() chooses deterministically. Otherwise each pop() picks
    /// uniformly at random among the min(size(), n) queued entries that were
    /// pushed earliest, whatever their lane.
    virtual std::size_t random_window() const noexcept = 0;

  protected:
    ~lanes_fairness() = default;
};

/// The name under which a lane policy answers query_interface() with a
/// lanes_deferred*.
inline constexpr const char* lanes_deferred_name = "rtkit.lanes_deferred.v1";

/// An extension of lane_policy (version 1): the kernel tells a task that was
/// woken (what it waited for came: a timer, I/O, a message, a join) from one
/// that can wait behind woken tasks, called deferred:
///  - a task not polled yet;
///  - a task that yielded (yield_now, or a spent cooperative budget);
///  - a task that spawned tasks in its latest poll, so that a spawner waits
///    behind what it spawned and cannot outrun it.
/// A policy that answers gets those through push_deferred(), and everything
/// else without a cancellation request through push(entry, lane::ready), so it
/// can run woken tasks first: the time from an event to the task that waited
/// for it is what users see as latency. Without this interface deferred tasks
/// go to push(entry, lane::ready) like the rest. A task with a pending
/// cancellation request always goes to push(entry, lane::cancel).
///
/// Threads and rules as for lane_policy: the entry comes back exactly once,
/// through pop() or steal(); a thief queues it again as the kernel sees it
/// then (a stolen yielded task counts as woken).
class lanes_deferred {
  public:
    /// Queues `entry`, which is not queued anywhere now, as deferred.
    virtual void push_deferred(schedulable* entry) noexcept = 0;

    /// As lanes_fairness::max_pops_before, for an entry pushed through
    /// push_deferred() when `cancel_queued`, `ready_queued` and
    /// `deferred_queued` entries were queued: the most pop()s that return
    /// other entries before the one that returns it, whatever is pushed after
    /// it, or lanes_fairness::no_bound.
    virtual std::size_t max_pops_before_deferred(std::size_t cancel_queued,
                                                 std::size_t ready_queued,
                                                 std::size_t deferred_queued) const noexcept = 0;

  protected:
    ~lanes_deferred() = default;
};

}  // namespace rtkit
