#include "engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <rtkit/cx.hpp>

#include "rtkit/interp/script_failed.hpp"
#include "task_notes.hpp"

namespace rtkit::interp {
namespace {

constexpr task_verb waits{"waits", "wait"};
constexpr task_verb runs{"is running a statement", "are running a statement"};

std::string time_limit_message(rtkit::duration limit) {
    return "the script ran longer than its time limit of " +
           script::to_display(script::value(limit)) +
           " (rtctl run --max-time D raises it): every task is cancelled";
}

const rtkit::cancel_reason time_limit_passed{"the script's time limit passed"};

}  // namespace

interpreter::interpreter(const script::program& program, std::ostream& out, std::ostream& err,
                         interpreter_options options) {
    if (options.deadlock_watch_period <= rtkit::duration::zero())
        throw std::invalid_argument(
            "interpreter_options::deadlock_watch_period must be positive, not " +
            std::to_string(options.deadlock_watch_period.count()) + "ns");
    engine_ = std::make_unique<engine>(program, out, err, options);
}

interpreter::~interpreter() = default;

rtkit::task<void> interpreter::run(const rtkit::runtime& runtime) {
    return engine_->run(runtime);
}

void interpreter::stop(std::string reason) {
    engine_->stop(std::move(reason));
}

std::uint64_t interpreter::live_tasks() const noexcept {
    return engine_->live_tasks();
}

std::size_t interpreter::errors_reported() const noexcept {
    return engine_->errors_reported();
}

rtkit::task<void> engine::run(const rtkit::runtime& runtime) {
    runtime_ = &runtime;
    start_ = rtkit::now();
    if (options_.max_time > rtkit::duration::zero())
        time_limit_ = rtkit::saturating_add(start_, options_.max_time);
    // The top level runs as a task of its own, so that stop() can cancel it.
    auto identity = std::make_shared<const task_identity>(task_identity{"", {}, nullptr});
    auto top = std::make_shared<task_record>(identity, nullptr, 0);
    top->attach(
        rtkit::spawn(run_task(identity, program_.body, script::environment{}, top, live_task{})));
    {
        std::lock_guard guard(top_lock_);
        top_ = top;
        if (stopped_) top_->cancel(*stopped_);
    }
    rtkit::join_handle<void> watch = rtkit::spawn(watch_for_deadlock());
    std::optional<rtkit::join_handle<void>> clock;
    if (time_limit_ != rtkit::instant::max()) clock = rtkit::spawn(watch_time_limit());
    const std::shared_ptr<script::task_outcome> outcome = co_await top->join();
    co_await top->take_handle();  // its very end, frame and all
    watch.cancel();
    co_await std::move(watch);
    if (clock) {
        clock->cancel();
        co_await std::move(*clock);
    }
    if (outcome->is_failure()) report(outcome->failure());
    if (outcome->state() == script::task_outcome::status::cancelled && errors_.load() == 0)
        report_text("error: the script was stopped: " + outcome->message() + '\n');
    // Every task ended: let go of what objects still hold, so that objects
    // that refer to each other (a channel carrying itself) are freed.
    std::vector<std::weak_ptr<script::object>> tracked;
    {
        std::lock_guard guard(tracked_lock_);
        tracked.swap(tracked_);
    }
    {
        std::lock_guard guard(top_lock_);
        top_.reset();
        stopped_ = "the script has ended";  // a later stop() has nothing to do
        ended_ = true;
    }
    for (const auto& weak : tracked)
        if (const auto o = weak.lock()) o->release_values();
    if (errors_.load() > 0) throw script_failed();
}

void engine::stop(std::string reason) {
    std::lock_guard guard(top_lock_);
    if (options_.on_stop && !stop_announced_ && !ended_) {
        stop_announced_ = true;
        options_.on_stop();
    }
    if (top_)
        top_->cancel(std::move(reason));
    else if (!stopped_)
        stopped_ = std::move(reason);  // before run() started: run() stops at once
}

void engine::print_line(const std::string& line) {
    std::lock_guard guard(output_lock_);
    out_ << line << '\n' << std::flush;
}

void engine::report(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const script_failure& f) {
        report_text(format_failure(f));
    } catch (const std::exception& e) {
        report_text(std::string("error: ") + e.what() + '\n');
    } catch (...) {
        report_text("error: an unknown exception\n");
    }
}

void engine::report_text(const std::string& text) {
    std::lock_guard guard(output_lock_);
    out_.flush();  // what the script printed before the error comes first
    err_ << text << std::flush;
    ++errors_;
}

void engine::step(task_state& task, const script::source_pos& where) {
    task.running_at.store(&where, std::memory_order_relaxed);
    const std::uint64_t done = steps_.fetch_add(1, std::memory_order_relaxed);
    if (options_.max_steps == 0 || done < options_.max_steps) {
        if (time_up_.load(std::memory_order_relaxed) ||
            (done % clock_check_period == 0 && time_limit_ != rtkit::instant::max() &&
             rtkit::now() >= time_limit_))
            out_of_time(task, where);
        task.context.checkpoint();
        return;
    }
    const rtkit::cancel_reason spent{"the script's step budget is spent"};
    if (done == options_.max_steps) {
        report_text(format_failure(script_failure(
            script::script_error(
                script::error_kind::runtime, where,
                "the script used up its budget of " + std::to_string(options_.max_steps) +
                    " steps (statements and loop rounds): a loop that never waits? (rtctl run "
                    "--max-steps N raises the budget, 0 lifts it)"),
            false, task.identity)));
        stop(spent.message);
    }
    throw rtkit::task_cancelled(spent);
}

void engine::out_of_time(const task_state& task, script::source_pos where) {
    time_up_.store(true, std::memory_order_relaxed);
    if (!time_limit_reported_.exchange(true)) {
        report_text(format_failure(
            script_failure(script::script_error(script::error_kind::runtime, where,
                                                time_limit_message(options_.max_time)),
                           false, task.identity)));
        stop(time_limit_passed.message);
    }
    throw rtkit::task_cancelled(time_limit_passed);
}

live_task engine::admit_task(const task_state& task, script::source_pos where) {
    const std::uint64_t alive = live_tasks_.fetch_add(1, std::memory_order_relaxed);
    live_task admitted(live_tasks_);
    if (options_.max_tasks == 0 || alive < options_.max_tasks) return admitted;
    const rtkit::cancel_reason reached{"the script's limit on live tasks was reached"};
    if (!task_limit_reported_.exchange(true)) {
        report_text(format_failure(script_failure(
            script::script_error(
                script::error_kind::runtime, where,
                "the script has " + std::to_string(options_.max_tasks) +
                    " tasks alive, its limit: a spawn that never ends, such as a function that "
                    "spawns itself? (rtctl run --max-tasks N raises the limit, 0 lifts it)"),
            false, task.identity)));
        stop(reached.message);
    }
    throw rtkit::task_cancelled(reached);
}

void engine::track(const std::shared_ptr<script::object>& o) {
    std::lock_guard guard(tracked_lock_);
    if (tracked_.size() == tracked_.capacity()) {
        // Forget the objects that are gone before growing.
        std::erase_if(tracked_, [](const auto& weak) { return weak.expired(); });
        tracked_.reserve(2 * tracked_.size() + 16);
    }
    tracked_.push_back(o);
}

std::chrono::nanoseconds engine::elapsed() const {
    return rtkit::now() - start_;
}

rtkit::task<void> engine::watch_for_deadlock() {
    // Not from the statements the script starts (woken tasks may drain for
    // long without starting one) but from the runtime's own state: whether
    // anything can run.
    const rtkit::duration period = options_.deadlock_watch_period;
    int stuck_looks = 0;
    std::uint64_t polls_seen = 0;
    while (true) {
        co_await rtkit::sleep(period);
        // The runtime first: a task that leaves the watch (it ends) is still
        // alive in the runtime until it has woken whoever joins it.
        const rtkit::runtime_metrics runtime = runtime_->metrics();
        const auto stuck = deadlocks_.stuck();
        // A task that a worker took from its lane is in no lane while it
        // runs: that no task but this watch was polled since the last look
        // says that none was running then.
        const bool none_ran = runtime.polls - polls_seen <= 1;
        polls_seen = runtime.polls;
        if (stuck.empty() || !runtime_idle(runtime, stuck.size()))
            stuck_looks = 0;
        else
            stuck_looks = none_ran ? stuck_looks + 1 : 1;
        if (stuck_looks < 2) continue;
        report_text(
            "error: deadlock: every task waits for another one (on a channel, a join, a "
            "semaphore or the end of the tasks it spawned), so none can go on\n" +
            task_notes(stuck, waits));
        stop("deadlock");
        co_return;
    }
}

bool engine::runtime_idle(const rtkit::runtime_metrics& runtime, std::size_t waiting_tasks) const {
    // Besides the script's tasks, the runtime runs this watch and the time
    // limit's watch. Each has a timer: the time limit's is armed, and this
    // watch's has fired, but a worker counts the timers it fired only after
    // waking their tasks, so it may still read as pending.
    const std::uint64_t watches = time_limit_ != rtkit::instant::max() ? 2 : 1;
    // No worker but the one polling this watch runs a dispatch batch: one
    // that does may hold a task in no queue, for milliseconds on a busy host
    // if the system gives its thread no processor.
    return runtime.workers_dispatching <= 1 && runtime.queued == 0 &&
           runtime.injection_queue_depth == 0 && runtime.inboxes_pending == 0 &&
           runtime.timers_pending <= watches && runtime.tasks_alive <= waiting_tasks + watches;
}

rtkit::task<void> engine::watch_time_limit() {
    co_await rtkit::cx::current().sleep_until(time_limit_);
    // A task that runs statements reports at its next one (step() and spin
    // look at time_up_); tasks that wait are reported here, where they wait.
    time_up_.store(true, std::memory_order_relaxed);
    // Tasks that neither reach a statement nor wait for this many looks (held
    // up in a long builtin, or given no thread) are named where they run.
    // With no task to name (the script ended, and run() is about to cancel
    // this watch), there is nothing to report: the looks go on.
    constexpr int looks = 100;
    for (int look = 1;; look = std::min(look + 1, looks)) {
        if (time_limit_reported_.load()) co_return;
        const auto waiting = deadlocks_.waiting_tasks();
        const auto running = look >= looks ? deadlocks_.running_tasks() : task_places{};
        if (!waiting.empty() || !running.empty()) {
            if (time_limit_reported_.exchange(true)) co_return;
            report_text("error: " + time_limit_message(options_.max_time) + '\n' +
                        task_notes(waiting, waits) + task_notes(running, runs));
            stop(time_limit_passed.message);
            co_return;
        }
        co_await rtkit::sleep(std::max<rtkit::duration>(options_.deadlock_watch_period / 10,
                                                        std::chrono::microseconds(1)));
    }
}

}  // namespace rtkit::interp
