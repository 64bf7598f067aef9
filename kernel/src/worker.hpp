#pragma once
// One worker: its lanes, timers, task store and inbox, and the dispatch loop
// that pops a task and polls it. One class, defined by concern:
// worker.cpp (construction, dispatch), worker_lanes.cpp (promotion, steals),
// worker_store.cpp (admission, local tasks, region walks), worker_timers.cpp,
// worker_inbox.cpp (what other threads hand over), worker_trace.cpp, and
// worker_run_loop.hpp (the loops of a block_on caller; above worker_group).
// What the hot paths of other files call is inline here.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "activity_board.hpp"
#include "lane_entries.hpp"
#include "mpsc_queue.hpp"
#include "parker.hpp"
#include "remote_request.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/handle.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/lane_policy.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/timer_driver.hpp"
#include "runtime_clock.hpp"
#include "task_store.hpp"
#include "worker_counters.hpp"

namespace rtkit::detail {

class worker_group;
class trace_ring;

/// A worker owns a lane policy, a timer driver and a task store, and runs
/// tasks. Exactly one thread drives it at a time (the thread whose
/// `driving()` is this worker's handle); only that thread touches its timers
/// and store and pops its lanes. Other threads reach it through its inbox
/// (lock-free) and, to steal, through its lanes under `lanes_lock_`.
///
/// The worker dispatches and nothing else: what to run comes from its lanes
/// and its inbox; wakes, spawns and timer requests arrive through handles.
class worker {
  public:
    worker(worker_group& group, std::uint16_t index, std::shared_ptr<timer_driver> timers,
           std::shared_ptr<lane_policy> lanes);
    /// The store must be empty by now (worker_group::retire unwinds it).
    ~worker();
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    handle& get_handle() noexcept { return handle_; }
    worker_group& group() noexcept { return group_; }
    std::uint16_t index() const noexcept { return index_; }
    task_store& store() noexcept { return store_; }
    const task_store& store() const noexcept { return store_; }
    parker& park_state() noexcept { return parker_; }
    /// Its slot on the runtime's activity board (activity_board.hpp).
    activity_slot& activity() const noexcept { return activity_; }
    /// The runtime's clock (any thread).
    instant now() const noexcept { return clock_.now(); }

    /// From now on the lanes and the store take their locks (the group has
    /// gained a second worker, which may steal and finish this worker's
    /// tasks). Before any thread drives a worker.
    void lock_from_now() noexcept;

    // --- Driving thread only. ---

    /// Registers a spawned task (already marked scheduled) and queues it.
    void admit(task_header* task);
    /// Queues a registered task in the lane its state asks for: cancel when
    /// a cancellation is pending; deferred when it was never polled or
    /// spawned in its latest poll (and the policy has rtkit.lanes_deferred.v1);
    /// ready otherwise. `yielded`: its poll just yielded, which defers it too.
    void push(task_header* task, bool yielded = false) noexcept;
    /// A task taken from a queue (the injector, an inbox): admits a new spawn,
    /// pushes a woken task.
    void take_in(task_header* task);
    /// Moves a task queued here to the cancel lane; nothing if it left.
    void promote(task_header* task) noexcept;
    /// Where a task waits (task_header::lanes_of), read by a cancellation
    /// request (to promote it) and by a wake (to requeue it cheaply):
    /// - in a worker's ready lane: the worker's index;
    /// - in its cancel lane: the index with in_cancel_lane;
    /// - among suspended_: its slot there with in_suspended.
    /// where_kind masks the two bits, which no worker index has (runtime.cpp's
    /// max_workers).
    static constexpr std::uint16_t in_cancel_lane = 0x8000;
    static constexpr std::uint16_t in_suspended = 0x4000;
    static constexpr std::uint16_t where_kind = in_cancel_lane | in_suspended;
    /// Whether `task` is among some worker's tasks suspended in this batch
    /// (suspended_): only the thread driving that worker may requeue it so.
    static bool is_suspended_in_batch(const task_header* task) noexcept {
        return (task->lanes_of.load(std::memory_order_relaxed) & where_kind) == in_suspended;
    }
    /// The index of the worker in whose ready lane `task` waits; none when it
    /// waits in no ready lane (nowhere, in a cancel lane, or suspended).
    static std::optional<std::uint16_t> in_ready_lane_of(const task_header* task) noexcept {
        const std::uint16_t where = task->lanes_of.load(std::memory_order_relaxed);
        if (where == task_header::not_in_lanes || (where & where_kind)) return std::nullopt;
        return where;
    }
    /// A wake on the thread driving this worker: when `task` is among the
    /// tasks that suspended here and are still marked running (see
    /// suspended_), queues it with no locked instruction and returns true.
    bool requeue_if_suspended_here(task_header* task) noexcept;
    /// Requests cancellation of every task of this store in `region` or below.
    void cancel_region_tasks(region_node& region);
    /// Arms and disarms timers in this worker's timer driver. All arming goes
    /// through here, so the worker knows when none is armed and can skip
    /// asking the timer driver on every turn.
    timer_handle arm_timer(instant deadline, waker w);
    void cancel_timer(timer_handle id) noexcept;

    /// One dispatch turn: polls at most one task. Every maintenance_interval
    /// turns, and whenever the lanes are empty, it first maintains (drains
    /// the inbox, fires due timers). False when nothing was runnable even so.
    bool run_once();
    /// Dispatch turns, one after the other, until `limit` polls were made or
    /// nothing was runnable. Returns the number of polls. Staying in one loop
    /// here spares a busy run a call per poll.
    std::size_t run_batch(std::size_t limit);
    /// Dispatches until `stop()` is true or the runtime shuts down, looking at
    /// it after every `polls_per_look` polls (run_batch). When nothing is
    /// runnable it fires due timers and then either returns (return_when_idle)
    /// or parks in the reactor until the next deadline or a wake (the
    /// current-thread flavor; the multi-thread driver parks its own way).
    /// (worker_run_loop.hpp)
    template <class Stop>
    void run_loop_until(Stop&& stop, bool return_when_idle, std::size_t polls_per_look = 1);
    /// Dispatches until no task is left in the store, the runtime shuts down,
    /// or `deadline` passes: checked when idle, and every few polls in a busy
    /// run (so self-waking tasks cannot hold it). When idle it waits in the
    /// reactor, no later than `deadline`.
    void run_until_drained(instant deadline);
    /// Moves what the inbox holds into the lanes and carries out the requests.
    void drain_inbox();
    /// Teardown only, after retire: the timer driver goes, with the wakers it
    /// holds.
    void drop_timers() noexcept;
    /// Teardown only: releases what queued requests hold without carrying
    /// them out; true if there was any.
    bool discard_requests() noexcept;
    /// Inbox, due timers, and (every so often) I/O readiness.
    void maintain();
    /// Marks every task that suspended in this batch idle, or queues it when
    /// a wake from another thread found it still running and marked it
    /// notified (see suspended_). Every batch ends with it.
    void settle_suspended() noexcept;
    /// Fires the timers that are due now (if any is armed).
    void fire_due_timers();
    /// True when some task could run now without waiting (queued work, inbox
    /// items, or due timers).
    bool has_runnable() {
        if (queued() > 0 || tasks_in_.has_items() || requests_in_.has_items()) return true;
        return armed_timers_ != 0 && timer_due();
    }
    /// The earliest instant a timer of this worker comes due.
    std::optional<instant> next_deadline() const noexcept {
        if (armed_timers_ == 0) return std::nullopt;
        return armed_deadline();
    }
    /// Whether a timer of this worker is armed.
    bool has_armed_timers() const noexcept { return armed_timers_ != 0; }
    /// Waits in the reactor for I/O, a wake or the next timer, and no later
    /// than `limit` when there is one (current-thread flavor).
    /// (worker_run_loop.hpp)
    template <class Stop>
    void park(Stop& stop, std::optional<instant> limit = std::nullopt);
    /// Before park() sleeps for `timeout` (negative: no limit): polls the
    /// reactor without blocking for up to runtime_config::poll_before_park,
    /// until it reports readiness, work comes in or `stop` holds. True then:
    /// the worker need not sleep. (worker_run_loop.hpp)
    template <class Stop>
    bool poll_before_parking(Stop& stop, duration timeout);

    /// Live local tasks owned by `owner` (they pin the worker to that thread).
    std::size_t local_tasks_of(std::thread::id owner) const;
    /// Keeps a runnable local task of another thread than the calling one,
    /// which drives this worker, until its owner drives it again
    /// (handle::route decides).
    void hold_for_owner(task_header* task) noexcept;
    /// Requeues the local tasks of the calling thread that were woken while
    /// another thread drove the worker. Called when a thread starts driving it.
    void rescue_stranded() {
        if (!stranded_.empty()) requeue_stranded();
    }

    /// Up to half of the tasks queued here, for a worker that ran dry
    /// (any thread; takes the lanes lock). Returns how many went into `out`
    /// (stale twins among the entries taken are dropped, not returned).
    /// Local tasks (spawn_local) run only here, so those the policy gave
    /// away are queued again here, at the back of their lane.
    std::size_t steal_into(task_header** out, std::size_t max) noexcept;
    /// The most tasks one steal moves (about half of the victim's tasks).
    static constexpr std::size_t max_steal = 128;

    // --- Any thread. ---

    /// Queues a task for this worker (its scheduled bit won) and unparks it.
    void send_task(task_header* task) noexcept;
    /// Queues a request for this worker and unparks it.
    void send_request(remote_request* request) noexcept;
    /// Calls f(task_header*) for every task in the store (f must not insert
    /// or remove). Driving thread only.
    template <class F>
    void for_each_task(F&& f) {
        if (shared_) store_lock_.lock();
        store_.for_each(f);
        if (shared_) store_lock_.unlock();
    }
    /// True when the inbox may hold something (a hint for parking).
    bool inbox_may_have_items() const noexcept {
        return inbox_may_hold_tasks() || !requests_in_.looks_empty();
    }
    /// Tasks only: a request alone (a timer to arm, a move to the cancel
    /// lane) may outlive its task and keeps nothing alive.
    bool inbox_may_hold_tasks() const noexcept { return !tasks_in_.looks_empty(); }
    /// How many tasks the lanes hold (a snapshot).
    std::size_t queued() const noexcept { return queued_.load(std::memory_order_relaxed); }
    /// Whether a dispatch batch that polled a task runs now (run_once,
    /// run_batch): any thread, for metrics. A task the batch holds may be in
    /// no queue meanwhile.
    bool dispatching() const noexcept { return dispatching_.load(std::memory_order_relaxed); }
    void set_dispatching(bool on) noexcept { dispatching_.store(on, std::memory_order_relaxed); }
    /// Whether a thief may get something here (a snapshot): the lanes hold
    /// entries, and no steal came back empty since the last push. A lane
    /// policy may keep entries from thieves (steal() gives "up to" max); a
    /// worker that ran dry then parks instead of asking again and again,
    /// until a push here gives it something new to ask for.
    bool may_give_to_thieves() const noexcept {
        return queued() > 0 && !thieves_refused_.load(std::memory_order_relaxed);
    }

    /// Every this many polls, a busy worker also drains its inbox and fires
    /// timers; a dispatch batch (run_batch) is at most this long.
    static constexpr unsigned maintenance_interval = 61;

    /// What this worker counts (rtkit::worker_metrics). Only its driving
    /// thread adds to them; any thread reads them.
    worker_counters& counters() noexcept { return counters_; }
    const worker_counters& counters() const noexcept { return counters_; }
    /// Polls the reactor (serialised with the other workers, see
    /// worker_group::poll_io) and counts the call. Returns what it delivered.
    std::size_t poll_reactor(duration timeout);

    /// This worker's trace records, or null when the runtime does not trace
    /// (every trace point is one branch on it). Driving thread only.
    trace_ring* trace() const noexcept { return trace_; }
    void set_trace(trace_ring* ring) noexcept { trace_ = ring; }
    /// Trace points out of line: the time now on the trace's clock, a park
    /// that began at `began`, the counter track (tasks alive and queued).
    std::int64_t trace_now() const noexcept;
    void trace_park(std::int64_t began) noexcept;
    void trace_counters() noexcept;

  private:
    /// has_runnable() with a timer armed: whether the earliest is due now.
    bool timer_due();
    /// next_deadline() with a timer armed: asks the timer driver.
    std::optional<instant> armed_deadline() const noexcept;
    /// rescue_stranded() when some task is stranded.
    void requeue_stranded();
    void complete(task_header* task) noexcept;
    /// execute() with a trace record of the poll around it.
    void execute_traced(task_header* task);
    /// Records the end of `task` with its outcome.
    void trace_end(task_header* task) noexcept;
    /// Records a timer event about the task polled now, if any.
    void trace_timer(std::uint8_t kind) noexcept;
    /// Records an event that counts things: timers fired, I/O made ready.
    void trace_count(std::uint8_t kind, std::uint64_t count) noexcept;
    /// Removes a finishing task this worker admitted from its store (the
    /// caller then drops the store's reference). Any worker's thread: with
    /// several workers a task often finishes on another one than it started on.
    void forget(task_header* task) noexcept;
    /// Gives a task this worker admitted its store slot, when it is first
    /// polled (any worker's thread, as forget).
    void keep(task_header* task) noexcept;
    /// Before a task's first poll: keep() it in its admitting worker's store,
    /// then cancel it if the runtime shuts down or its region was cancelled
    /// while it waited without a slot, where those do not look.
    [[gnu::noinline]] void start_first_poll(task_header* task) noexcept;
    void carry_out(remote_request& request);
    /// The next task from the lanes (dropping stale twins), or nullptr.
    task_header* pop_lanes() noexcept;
    /// An entry the lanes just gave back (under the lanes lock): a task's own
    /// entry is no longer where a promotion looks. Returns the entry's state
    /// word, which tells a stand-in from a task (task_leaving_lane).
    static std::uint64_t left_lanes(schedulable* entry) noexcept;
    /// One dispatch turn (run_once), inlined into the dispatch loops.
    /// `traced`: records the poll (run_batch decides once per batch, so an
    /// untraced poll pays nothing for the trace point).
    template <bool traced>
    bool poll_next();
    /// Polls `task` once, now.
    void execute(task_header* task);
    /// Before a local task's poll: on a thread that is not its owner, hands
    /// it to handle::route and returns true. Out of line: the rare case.
    [[gnu::noinline, gnu::cold]] bool routed_to_owner(task_header* task) noexcept;
    /// After a poll that suspended `task`: keeps it in suspended_ when it
    /// can, else mark_idle_or_requeue.
    void after_suspend(task_header* task) noexcept;
    /// running -> idle, in one compare-exchange; or, when a wake marked the
    /// task notified meanwhile, requeues it still running, as a yield does.
    void mark_idle_or_requeue(task_header* task) noexcept;
    /// Queues `task` in the lane its state asks for (push), under the lanes
    /// lock (when shared_); the caller counts it in queued_.
    void queue_held(task_header* task, bool yielded = false) noexcept;
    /// Counts an entry pushed into the lanes (under the lanes lock).
    void count_push() noexcept;

    worker_group& group_;
    runtime_clock& clock_;
    const std::uint16_t index_;
    handle handle_;
    parker parker_;
    // Declared before the store so they outlive the tasks' unwinding.
    std::shared_ptr<timer_driver> timers_;
    std::shared_ptr<lane_policy> lanes_;
    /// The policy's rtkit.lanes_deferred.v1, or null: then deferred tasks go
    /// to its ready lane.
    lanes_deferred* const deferred_lanes_;
    /// Taken around every call on `lanes_` when other workers may steal, and
    /// around the store when other workers may remove what they finished.
    sync::detail::spin_lock lanes_lock_;
    sync::detail::spin_lock store_lock_;
    bool shared_;  ///< the group has other workers: take the locks
    std::atomic<std::size_t> queued_{0};
    std::atomic<bool> dispatching_{false};
    std::atomic<bool> thieves_refused_{false};
    task_store store_;
    mpsc_queue<schedulable, task_link> tasks_in_;
    mpsc_queue<remote_request, request_link> requests_in_;
    unsigned tick_ = 0;
    std::size_t armed_timers_ = 0;
    /// What fire_due_timers knows without asking the driver or reading the
    /// clock: while clock_.take_mark() is below `no_timer_due_below_` (0:
    /// nothing known), the time has not reached `timers_due_from_`, before
    /// which no armed timer is due (the driver's next_deadline() then, or an
    /// earlier deadline armed since, which resets the mark).
    runtime_clock::mark no_timer_due_below_ = 0;
    instant timers_due_from_ = instant::min();
    /// Tasks that suspended during the current dispatch batch, left marked
    /// running. Marking a task idle after its poll takes a locked
    /// instruction, and so does claiming it again when it is woken; most
    /// tasks that wait on a channel or a timer are woken from this same
    /// thread within a few polls. So a worker no other worker steals from
    /// keeps them here instead: a wake from this thread requeues one with
    /// plain stores, and every batch ends by settling the rest. A wake from
    /// another thread meanwhile finds the task running and marks it
    /// notified, which the settling sees, so it waits one batch at most.
    /// Null slots are tasks requeued since.
    static constexpr std::size_t suspended_capacity = 64;
    std::array<task_header*, suspended_capacity> suspended_{};
    std::size_t suspended_count_ = 0;
    /// Local tasks that became runnable while a thread other than their owner
    /// drove the worker; each waits here (still marked scheduled, so further
    /// wakes are no-ops) until its owner drives the worker again.
    std::vector<task_header*> stranded_;
    std::unordered_map<std::thread::id, std::size_t> local_counts_;
    worker_counters counters_;
    trace_ring* trace_ = nullptr;
    activity_slot& activity_;
};

// Inline: wakes on the worker's own thread push from other files, and a
// call per wake was a noticeable part of a channel round trip.
inline void worker::push(task_header* task, bool yielded) noexcept {
    RTKIT_CHAOS_POINT(lanes_pushing);
    if (shared_) lanes_lock_.lock();
    queue_held(task, yielded);
    count_push();
    if (shared_) lanes_lock_.unlock();
}

inline void worker::queue_held(task_header* task, bool yielded) noexcept {
    const std::uint64_t state = task->state.load(std::memory_order_relaxed);
    if (state & task_state::cancel_requested) [[unlikely]] {
        lanes_->push(entry_to_queue(task, state), lane::cancel);
        task->lanes_of.store(index_ | in_cancel_lane, std::memory_order_relaxed);
        return;
    }
    const bool deferred = yielded || (state & task_state::spawner) ||
                          task->store_index == task_store::no_slot;  // never polled
    if (deferred && deferred_lanes_)
        deferred_lanes_->push_deferred(task);
    else
        lanes_->push(task, lane::ready);
    task->lanes_of.store(index_, std::memory_order_relaxed);
}

inline void worker::count_push() noexcept {
    queued_.store(queued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    // The new entry may be one the policy gives away. (Read first: a store
    // on every push would take the line from thieves that only look.)
    if (thieves_refused_.load(std::memory_order_relaxed))
        thieves_refused_.store(false, std::memory_order_relaxed);
}

inline bool worker::requeue_if_suspended_here(task_header* task) noexcept {
    const std::uint16_t where = task->lanes_of.load(std::memory_order_relaxed);
    if ((where & where_kind) != in_suspended) return false;
    const std::size_t slot = where & ~in_suspended;
    if (slot >= suspended_count_ || suspended_[slot] != task) return false;
    suspended_[slot] = nullptr;
    if (slot + 1 == suspended_count_) --suspended_count_;  // a ping-pong stays at one
    counters_.wakes_same_worker.add();
    // Still running, as a yield requeues it.
    push(task);
    return true;
}

// Inline: the dispatch loop hands a local task to its home worker with it,
// and the loop's code is tighter when the push is in sight.
inline void worker::send_task(task_header* task) noexcept {
    tasks_in_.push(entry_to_queue(task));
    RTKIT_CHAOS_POINT(inbox_pushed);
    parker_.unpark();
}

// Inline: every task takes a store slot at its first poll and gives it back
// at its end (dispatch, in worker.cpp).
[[gnu::always_inline]] inline void worker::forget(task_header* task) noexcept {
    if (shared_) store_lock_.lock();
    store_.remove(task->store_index);
    if (task->state.load(std::memory_order_relaxed) & task_state::local) {
        auto found = local_counts_.find(task->extras()->local_owner);
        if (--found->second == 0) local_counts_.erase(found);
    }
    if (shared_) store_lock_.unlock();
}

inline void worker::keep(task_header* task) noexcept {
    if (shared_) store_lock_.lock();
    store_.keep(task);
    if (shared_) store_lock_.unlock();
}

[[gnu::always_inline]] inline std::uint64_t worker::left_lanes(schedulable* entry) noexcept {
    const std::uint64_t state =
        static_cast<lane_entry*>(entry)->state.load(std::memory_order_relaxed);
    if (!(state & task_state::stand_in)) {
        std::atomic<std::uint16_t>& where = static_cast<task_header*>(entry)->lanes_of;
        // Unless this is a stale own entry of a task that ran from its
        // stand-in and has suspended since: it keeps its suspended slot.
        if ((where.load(std::memory_order_relaxed) & where_kind) != in_suspended)
            where.store(task_header::not_in_lanes, std::memory_order_relaxed);
    }
    return state;
}

}  // namespace rtkit::detail
