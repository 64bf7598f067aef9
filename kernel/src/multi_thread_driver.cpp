#include "multi_thread_driver.hpp"

#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/diagnostics.hpp"
#include "thread_context.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

namespace {
/// How many tasks a worker takes from the injector at once.
constexpr std::size_t injector_batch = 32;
/// A busy worker also looks at the injector every this many polls, so work
/// from outside is not starved by work that keeps spawning locally.
constexpr std::size_t injector_check_interval = 61;
/// Rounds a worker thread gives its local tasks to unwind at shutdown, and
/// the polls it makes in each: the tasks queued beside them may keep running
/// (one that ignores cancellation), and must not keep the thread from ending.
constexpr int local_unwind_rounds = 1000;
constexpr int local_unwind_polls_per_round = 10'000;

}  // namespace

multi_thread_driver::multi_thread_driver(worker_group& group, region_node& root_region)
    : group_(group), root_region_(root_region) {}

multi_thread_driver::~multi_thread_driver() {
    shutdown();
}

void multi_thread_driver::start() {
    try {
        for (std::size_t i = 0; i < group_.size(); ++i)
            threads_.emplace_back([this, i] { run_worker(group_.worker_at(i)); });
    } catch (...) {
        shutdown();
        throw;
    }
}

void multi_thread_driver::run_worker(worker& w) {
    scoped_driving here(&w.get_handle(), w.group().huge_pages());
    bool searching = false;
    // A worker stops counting as searching as soon as it has found work, before
    // it runs any: a task may run for long, and while anyone counts as
    // searching, new work wakes nobody. The last searcher to stop wakes
    // another, so work spreads.
    auto found_work = [&] {
        if (!searching) return;
        searching = false;
        if (group_.idle().stop_searching()) group_.notify_work_available();
    };
    try {
        while (!group_.shutting_down()) {
            if (searching) {
                // What its inbox brought, or a timer come due, is found work,
                // and said before it is carried out, which may take long.
                if (w.has_runnable()) found_work();
                w.maintain();
                if (w.queued() > 0) found_work();
            }
            if (const std::size_t polled = w.run_batch(injector_check_interval)) {
                if (polled == injector_check_interval) take_injected(w);
                continue;
            }
            if (w.has_runnable()) continue;
            if (take_injected(w)) {
                found_work();
                continue;
            }
            if (!searching) searching = group_.idle().try_start_searching();
            if (searching && steal(w)) {
                found_work();
                continue;
            }
            searching = park(w, searching);
        }
    } catch (const std::exception& e) {
        // A plugin failed under this worker (a reactor's poll, a timer
        // driver): nothing on this thread can take the error. The runtime
        // stops; its tasks are cancelled at shutdown.
        report_diagnostic({diagnostic_kind::thread_stopped,
                           std::string("a worker thread stopped after an error (") + e.what() +
                               "); the runtime shuts down"});
        group_.begin_shutdown();
        cancel_roots();
    }
    unwind_local_tasks(w);
    w.activity().write(activity_slot::word(worker_activity::state::stopped));
}

bool multi_thread_driver::take_injected(worker& w) {
    if (group_.injector_looks_empty()) return false;
    schedulable* batch[injector_batch];
    std::size_t n = 0;
    {
        worker_group::admission taking(group_);
        n = group_.take_injected(batch, injector_batch);
        w.counters().injected_taken.add(n);
        for (std::size_t i = 0; i < n; ++i)
            w.take_in(task_of_entry(batch[i]));
    }
    if (n > 0) group_.note_alive_tasks();
    // More than the one it runs next, or more in the injector: a parked
    // worker may come and steal. (A worker that was awake, not searching,
    // when it took the batch wakes nobody otherwise, and a searcher that
    // looked at its lanes before the batch landed has parked.)
    if (n > 1) group_.notify_work_available();
    return n > 0;
}

bool multi_thread_driver::steal(worker& w) {
    thread_local std::minstd_rand pick{std::random_device{}()};
    const std::size_t workers = group_.size();
    const std::size_t start = pick() % workers;
    task_header* batch[worker::max_steal];
    for (std::size_t k = 0; k < workers; ++k) {
        worker& victim = group_.worker_at((start + k) % workers);
        if (&victim == &w || !victim.may_give_to_thieves()) continue;
        const std::size_t n = victim.steal_into(batch, worker::max_steal);
        if (n == 0) continue;
        w.counters().steals.add(n);
        w.counters().steal_batches.add();
        for (std::size_t i = 0; i < n; ++i)
            w.push(batch[i]);
        return true;
    }
    return false;
}

bool multi_thread_driver::park(worker& w, bool searching) {
    idle_workers& idle = group_.idle();
    idle.park(w.index(), searching);
    RTKIT_CHAOS_POINT(parking);
    // Work may have come that woke nobody: while this worker searched, if it
    // was the last searcher; or, if it was refused searching because another
    // worker searched, that one may have found work, stopped and looked for
    // parked workers just before this one parked. Either way, look again now
    // that it counts as parked (its seq_cst RMW orders the two looks).
    if (!group_.injector_looks_empty() || group_.lanes_may_give_to_thieves())
        group_.notify_work_available();
    const std::optional<instant> deadline = w.next_deadline();
    duration timeout{-1};
    if (deadline) timeout = std::max(duration{0}, *deadline - w.now());
    // One parked worker waits in the reactor for everybody's I/O.
    const bool in_reactor = group_.io().try_lock_for_blocking_poll();
    w.park_state().announce(in_reactor ? parker::in_reactor : parker::on_futex);
    RTKIT_CHAOS_POINT(park_announced);
    // A last look, after announcing: work published before it is seen here,
    // work published after it finds this worker waiting and ends the wait.
    const bool work_came = w.inbox_may_have_items() || !group_.injector_looks_empty() ||
                           !idle.is_parked(w.index()) || group_.shutdown_begun_for_parker();
    if (!work_came) {
        RTKIT_CHAOS_POINT(park_waiting);
        worker_counters& counters = w.counters();
        const std::int64_t trace_began = w.trace() ? w.trace_now() : 0;
        const instant parked_at = w.now();
        if (in_reactor) {
            counters.reactor_events.add(group_.io().poll(timeout));
            counters.reactor_polls.add();
        } else {
            const activity_mark parked(&w.activity(), worker_activity::state::parked,
                                       plugin_call::none, true);
            w.park_state().wait_on_futex(timeout);
        }
        counters.parks.add();
        counters.parked_ns.add(static_cast<std::uint64_t>((w.now() - parked_at).count()));
        if (w.trace()) w.trace_park(trace_began);
    }
    w.park_state().clear();
    if (in_reactor) group_.io().unlock_after_blocking_poll();
    RTKIT_CHAOS_POINT(park_woke);
    return idle.woke(w.index());
}

void multi_thread_driver::unwind_local_tasks(worker& w) {
    const std::thread::id me = std::this_thread::get_id();
    auto local_left = [&] { return w.local_tasks_of(me) > 0; };
    for (int round = 0; round < local_unwind_rounds && local_left(); ++round) {
        RTKIT_CHAOS_POINT(worker_unwinding);
        w.drain_inbox();
        // Every task of this worker, not only the local ones: the others run
        // in the same lanes, and uncancelled they would keep running (a task
        // that yields for ever) as they do in any dispatch loop. Shutdown
        // cancels them all anyway.
        w.for_each_task([&](task_header* t) {
            if (!(t->state.load(std::memory_order_relaxed) & task_state::cancel_requested))
                w.get_handle().request_cancel(t, cancel_reason{"runtime shut down"});
        });
        for (int polls = 0; polls < local_unwind_polls_per_round && local_left() && w.run_once();
             ++polls) {
        }
        w.fire_due_timers();
    }
}

std::exception_ptr multi_thread_driver::drive(root_reference& reference) {
    if (handle::driven_here(group_))
        throw std::logic_error(
            "block_on called on one of this multi_thread runtime's worker threads would block "
            "that worker: spawn the work and co_await its join handle instead");
    task_header* root = reference.get();
    root->start_with_state(task_state::root);
    root->set_region(&root_region_);
    {
        std::lock_guard lock(roots_mutex_);
        roots_.emplace(root, std::this_thread::get_id());
    }
    // Out of roots_ before its frame goes (or when the poll throws): a
    // shutdown on another thread cancels what it finds there.
    struct forget_root {
        multi_thread_driver& driver;
        task_header* root;
        void now() {
            if (!root) return;
            std::lock_guard lock(driver.roots_mutex_);
            driver.roots_.erase(std::exchange(root, nullptr));
        }
        ~forget_root() { now(); }
    } registered{*this, root};
    // Polled here, off the workers, whenever its waker fired.
    run_root(root, group_, nullptr);
    registered.now();
    scoped_task retiring(root);
    return reference.retire();
}

std::size_t multi_thread_driver::roots_running() {
    std::lock_guard lock(roots_mutex_);
    return roots_.size();
}

void multi_thread_driver::drain_until(instant deadline) {
    if (handle::driven_here(group_)) return;
    const std::thread::id me = std::this_thread::get_id();
    auto roots_elsewhere = [&] {
        std::lock_guard lock(roots_mutex_);
        for (const auto& [root, caller] : roots_)
            if (caller != me) return true;
        return false;
    };
    worker& clock = group_.worker_at(0);
    while ((group_.spawns_in_flight() || group_.live_tasks() > 0 || roots_elsewhere()) &&
           clock.now() < deadline) {
        // The workers run the tasks; this thread only watches.
        std::this_thread::sleep_for(
            std::min<duration>(deadline - clock.now(), std::chrono::milliseconds(1)));
    }
}

void multi_thread_driver::cancel_roots() {
    // Roots waiting on other threads unwind at their next await point.
    std::lock_guard lock(roots_mutex_);
    for (const auto& [root, caller] : roots_)
        root->home().request_cancel(root, cancel_reason{"runtime shut down"});
}

bool multi_thread_driver::shutdown() {
    group_.begin_shutdown();
    cancel_roots();
    // From a task on a worker thread (or a destructor that the retirement
    // below runs): joining this thread, or retiring the worker it is
    // running, must wait for a call from outside.
    if (handle::driven_here(group_)) return false;
    // Two threads may call at once (a watchdog and the owner): one joins and
    // retires, the other waits for it to end.
    std::unique_lock lock(shutdown_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
        RTKIT_CHAOS_POINT(shutdown_waiting);
        lock.lock();
    }
    if (stopped_) return true;
    RTKIT_CHAOS_POINT(shutdown_joining);
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
    RTKIT_CHAOS_POINT(shutdown_retiring);
    group_.retire();
    stopped_ = true;
    return true;
}

}  // namespace rtkit::detail
