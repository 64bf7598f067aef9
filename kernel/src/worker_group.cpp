#include "worker_group.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

#include "rtkit/clock.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/diagnostics.hpp"
#include "thread_context.hpp"
#include "trace_recorder.hpp"
#include "worker.hpp"

namespace rtkit::detail {

namespace {
/// How many rounds of cancel-and-dispatch retire() gives tasks to unwind
/// before it gives up on the ones that keep running.
constexpr int retire_rounds = 1000;
/// Polls per worker and round, at least: a task that ignores cancellation
/// and keeps running must not hold the others up. A round may poll as many
/// times as tasks are alive, so that each round's walk over the stores pays
/// for itself (with a fixed number, shutting down N tasks walked the stores
/// N/10,000 times).
constexpr std::size_t retire_polls_per_round = 10'000;
}  // namespace

worker_group::worker_group(flavor f, std::shared_ptr<io_driver> io, bool huge_pages,
                           runtime_clock::kind time)
    : flavor_(f), io_(std::move(io)), huge_pages_(huge_pages), clock_(time) {}

worker_group::~worker_group() {
    retire();
    // A timer driver's last wakers may keep frames alive; freeing those may
    // send requests (a timer cancel) to any worker: all of them still exist
    // until the inboxes are empty, and nothing carries requests out any more.
    for (auto& w : workers_)
        w->drop_timers();
    bool discarded = true;
    while (discarded) {
        discarded = false;
        for (auto& w : workers_)
            discarded |= w->discard_requests();
    }
    workers_.clear();  // before the reactor, which their tasks' I/O used
    if (trace_) trace_->finish();
}

void worker_group::start_trace(const trace_config& config) {
    trace_ = std::make_unique<trace_recorder>(config, clock_);
}

worker& worker_group::add_worker(std::shared_ptr<timer_driver> timers,
                                 std::shared_ptr<lane_policy> lanes) {
    // The driver reads the runtime's clock from now on, if it can; one that
    // cannot keeps its own steady_clock, which only the monotonic clock is.
    if (auto* binding =
            static_cast<timer_clock_binding*>(timers->query_interface(timer_clock_binding_name)))
        binding->bind_clock(clock_);
    else if (clock_.is_virtual())
        throw std::invalid_argument(
            "a timer plugin that does not bind to the runtime's clock cannot run on the virtual "
            "clock");
    const auto index = static_cast<std::uint16_t>(workers_.size());
    activity_->add_worker();  // before the worker, which takes its slot
    workers_.push_back(std::make_unique<worker>(*this, index, std::move(timers), std::move(lanes)));
    if (trace_) {
        workers_.back()->set_trace(&trace_->add_worker_ring(index));
        workers_.back()->get_handle().set_tracing();
    }
    if (workers_.size() > 1)
        for (auto& w : workers_)
            w->lock_from_now();
    idle_.reset(workers_.size());
    return *workers_.back();
}

void worker_group::inject(task_header* task) noexcept {
    injected_.fetch_add(1, std::memory_order_relaxed);
    if (flavor_ == flavor::current_thread) {
        workers_.front()->send_task(task);
        return;
    }
    injector_.push(entry_to_queue(task));
    RTKIT_CHAOS_POINT(injector_pushed);
    if (const auto index = idle_.worker_to_notify_after_rmw())
        workers_[*index]->park_state().unpark();
}

std::size_t worker_group::take_injected(schedulable** out, std::size_t max) noexcept {
    RTKIT_CHAOS_POINT(queue_popping);
    if (injector_.looks_empty() || !injector_consumer_.try_lock()) return 0;
    std::size_t taken = 0;
    while (taken < max)
        if (schedulable* s = injector_.pop())
            out[taken++] = s;
        else
            break;
    injector_consumer_.unlock();
    return taken;
}

void worker_group::notify_work_available() noexcept {
    if (const auto index = idle_.worker_to_notify()) workers_[*index]->park_state().unpark();
}

worker_group::io_lock::io_lock(worker_group& group) : group_(group) {
    if (!group_.io_shared()) return;
    group_.io_->lock_calls();
    locked_ = true;
}

worker_group::io_lock::~io_lock() {
    if (!locked_) return;
    group_.io_->unlock_calls();
    if (!group_.io_->has_blocking_poller() && group_.has_io()) group_.notify_work_available();
}

std::size_t worker_group::poll_io(duration timeout) {
    if (!io_shared()) return io_->poll(timeout);
    if (timeout.count() == 0) {
        if (!io_->try_lock_calls()) return 0;  // another worker is in the reactor
        const std::size_t n = io_->poll(timeout);
        io_->unlock_calls();
        return n;
    }
    io_lock lock(*this);
    return io_->poll(timeout);
}

void worker_group::begin_shutdown() noexcept {
    // seq_cst: see shutdown_begun_for_parker.
    shutting_down_.store(true, std::memory_order_seq_cst);
    RTKIT_CHAOS_POINT(shutdown_begun);
    unpark_all();
}

void worker_group::unpark_all() noexcept {
    for (auto& w : workers_)
        w->park_state().unpark();
    io_->wake();
}

std::size_t worker_group::live_tasks() const noexcept {
    std::size_t live = 0;
    for (const auto& w : workers_)
        live += w->store().size();
    return live;
}

namespace {
/// Whether `holds` is true of some worker (a snapshot).
template <class Predicate>
bool any_worker(const std::vector<std::unique_ptr<worker>>& workers, Predicate holds) noexcept {
    for (const auto& w : workers)
        if (holds(*w)) return true;
    return false;
}
}  // namespace

bool worker_group::lanes_hold_entries() const noexcept {
    return any_worker(workers_, [](const worker& w) { return w.queued() > 0; });
}

bool worker_group::lanes_may_give_to_thieves() const noexcept {
    return any_worker(workers_, [](const worker& w) { return w.may_give_to_thieves(); });
}

bool worker_group::inboxes_hold_items() const noexcept {
    return any_worker(workers_, [](const worker& w) { return w.inbox_may_have_items(); });
}

namespace {
/// Spawned tasks alive now, from the stores' counts.
std::uint64_t alive_in(const std::vector<std::unique_ptr<worker>>& workers) noexcept {
    std::uint64_t alive = 0;
    for (const auto& w : workers)
        alive += w->store().live_tasks();
    return alive;
}

void raise_to(std::atomic<std::uint64_t>& peak, std::uint64_t value) noexcept {
    std::uint64_t seen = peak.load(std::memory_order_relaxed);
    while (value > seen && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
    }
}
}  // namespace

void worker_group::note_alive_tasks() noexcept {
    raise_to(peak_alive_, alive_in(workers_));
}

void worker_group::collect(runtime_metrics& into) const {
    into.workers.assign(workers_.size(), worker_metrics{});
    // The order of the reads keeps the task counts adding up: a task's
    // cancelled or panicked end is counted after its store removal, and
    // every store's ends are read before any store's live tasks (a task may
    // end on another worker than the one that admitted it).
    for (std::size_t i = 0; i < workers_.size(); ++i)
        workers_[i]->counters().read_into(into.workers[i]);
    for (std::size_t i = 0; i < workers_.size(); ++i)
        into.workers[i].tasks_ended = workers_[i]->store().tasks_ended();
    std::uint64_t ended = 0;
    std::uint64_t taken = 0;
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        worker_metrics& m = into.workers[i];
        ended += m.tasks_ended;
        m.tasks_spawned = m.tasks_ended + workers_[i]->store().live_tasks();
        m.queued = workers_[i]->queued();
        m.inbox_pending = workers_[i]->inbox_may_have_items();
        m.dispatching = workers_[i]->dispatching();
        taken += m.injected_taken;
    }
    for (const worker_metrics& m : into.workers) {
        into.tasks_spawned += m.tasks_spawned;
        into.tasks_cancelled += m.tasks_cancelled;
        into.tasks_panicked += m.tasks_panicked;
        into.polls += m.polls;
        into.cancel_lane_dispatches += m.cancel_lane_dispatches;
        into.wakes_same_worker += m.wakes_same_worker;
        into.wakes_other_worker += m.wakes_other_worker;
        into.steals += m.steals;
        into.parks += m.parks;
        into.time_parked += m.time_parked;
        into.reactor_polls += m.reactor_polls;
        into.reactor_events += m.reactor_events;
        into.timers_armed += m.timers_armed;
        into.timers_fired += m.timers_fired;
        into.timers_cancelled += m.timers_cancelled;
        into.queued += m.queued;
        into.inboxes_pending += m.inbox_pending ? 1 : 0;
        into.workers_dispatching += m.dispatching ? 1 : 0;
    }
    into.tasks_alive = into.tasks_spawned - ended;
    into.tasks_completed = ended - into.tasks_cancelled - into.tasks_panicked;
    raise_to(peak_alive_, into.tasks_alive);
    into.tasks_peak_alive = peak_alive_.load(std::memory_order_relaxed);
    // Each worker arms, fires and cancels its own timers, and reads its
    // ends before its arms (worker_counters::read_into).
    into.timers_pending = into.timers_armed - into.timers_fired - into.timers_cancelled;
    const std::uint64_t injected = injected_.load(std::memory_order_relaxed);
    into.injection_queue_depth = injected > taken ? injected - taken : 0;
    into.wakes_outside = wakes_outside_.load(std::memory_order_relaxed);
    into.io_registrations = static_cast<std::uint64_t>(
        std::max<long>(0, io_registrations_.load(std::memory_order_relaxed)));
}

bool worker_group::spawns_in_flight() const noexcept {
    // Last in each round: a task found in no queue may have been taken out
    // inside an admission that began before. An admission is short, so wait
    // for it to end (the task is then in a store, where the caller looks
    // next) rather than call a runtime busy whose idle worker was only looking
    // at the injector when it lost its CPU. An inbox drain admits as long as
    // others push, so the queues are looked at again each round, and after
    // many rounds the answer is "in flight".
    for (int round = 0; round < 1000; ++round) {
        if (!injector_.looks_empty()) return true;
        for (const auto& w : workers_)
            if (w->inbox_may_hold_tasks()) return true;
        if (admitting_.load(std::memory_order_seq_cst) == 0) return false;
        std::this_thread::yield();
    }
    return true;
}

std::uint64_t worker_group::finished_tasks() const noexcept {
    std::uint64_t finished = 0;
    for (const auto& w : workers_)
        finished += w->store().removed_total();
    return finished;
}

void worker_group::retire() noexcept {
    if (retired_) return;
    retired_ = true;
    // However it ends, no thread drives a worker afterwards.
    struct mark_stopped {
        activity_board& board;
        ~mark_stopped() { board.mark_all(worker_activity::state::stopped); }
    } stopped_at_end{*activity_};
    shutting_down_.store(true, std::memory_order_release);
    const bool home = io_->claim_for_this_thread();
    if (!home || !io_->begin_driving_here()) {
        // Unwinding tasks waits for their I/O in the reactor, which this
        // thread may not enter: leave the tasks as they are.
        const std::size_t left = live_tasks();
        const bool queued = spawns_in_flight();
        if (left > 0 || queued)
            report_diagnostic({diagnostic_kind::tasks_leaked,
                               std::to_string(left) + " task(s)" +
                                   (queued ? " and spawned tasks not yet started" : "") +
                                   " leaked at shutdown: " +
                                   (home ? io_->share_error()
                                         : "the runtime's reactor is bound to the thread that "
                                           "first drove it, and this is another thread; shut "
                                           "the runtime down on that thread")});
        return;
    }
    // Cancel and unwind: every task sees task_cancelled at its next await
    // point. Shutdown is set, so the dispatch loops would not run; turn by
    // hand, worker after worker, until nothing is left (a task finishing on
    // one worker may wake one on another).
    // Until the lanes are empty too: a task that finished may leave the
    // stale twin of its entry there, keeping its memory (lane_entries.hpp);
    // and the inboxes: a request (a socket to close) may outlive its task.
    for (int round = 0; round < retire_rounds && (spawns_in_flight() || live_tasks() > 0 ||
                                                  lanes_hold_entries() || inboxes_hold_items());
         ++round) {
        RTKIT_CHAOS_POINT(shutdown_retiring);
        schedulable* injected[64];
        while (const std::size_t n = take_injected(injected, std::size(injected)))
            for (std::size_t i = 0; i < n; ++i)
                workers_.front()->send_task(task_of_entry(injected[i]));
        // Every store first: a task may sit in another worker's lanes.
        for (auto& w : workers_) {
            scoped_driving here(&w->get_handle(), huge_pages_);
            w->drain_inbox();
            w->for_each_task([&](task_header* t) {
                if (!(t->state.load(std::memory_order_relaxed) & task_state::cancel_requested))
                    w->get_handle().request_cancel(t, cancel_reason{"runtime shut down"});
            });
        }
        const std::size_t polls_this_round = std::max(retire_polls_per_round, live_tasks());
        for (auto& w : workers_) {
            scoped_driving here(&w->get_handle(), huge_pages_);
            for (std::size_t polls = 0; polls < polls_this_round && w->run_once(); ++polls) {
            }
            w->drain_inbox();
            w->fire_due_timers();
        }
    }
    if (const std::size_t left = live_tasks())
        // Local tasks of other threads can only be polled by their owners, and a
        // task that swallows cancellation and never awaits again cannot be
        // unwound: such frames are leaked rather than destroyed under their feet.
        report_diagnostic({diagnostic_kind::tasks_leaked,
                           std::to_string(left) +
                               " task(s) could not be unwound at shutdown (local tasks of other "
                               "threads, or tasks that ignore cancellation); leaked"});
}

}  // namespace rtkit::detail
