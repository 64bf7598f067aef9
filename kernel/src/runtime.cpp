#include "rtkit/runtime.hpp"

#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "blocking_pool.hpp"
#include "current_thread_driver.hpp"
#include "frame_pages.hpp"
#include "multi_thread_driver.hpp"
#include "outside_wakes.hpp"
#include "rtkit/clock.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/diagnostics.hpp"
#include "rtkit/plugin_loader.hpp"
#include "thread_context.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit {
namespace detail {

namespace {

/// The most workers a runtime may have: a worker index leaves the two high
/// bits of task_header::lanes_of free (worker::where_kind).
constexpr int max_workers = 0x3FFF;
static_assert((max_workers & detail::worker::where_kind) == 0);

/// A plugin chosen for a slot: the file, its options, and a name for diagnostics.
struct chosen_plugin {
    std::filesystem::path file;
    option_table options;
    std::string name;
    std::string description;
};

/// Creates the first plugin of `selection` that starts, and says which it was.
/// Each one skipped before it is reported once, as a diagnostic; when none
/// starts (or a strict selection's first fails) the error says it all.
template <class Interface>
std::shared_ptr<Interface> start_plugin(const plugin_loader& loader,
                                        const plugin_selection& selection, chosen_plugin& chosen) {
    const std::string_view kind = kind_name(plugin_kind_of<Interface>);
    if (selection.preference.empty())
        throw plugin_error("no " + std::string(kind) + " plugin configured: set [" +
                           std::string(kind) + "] plugin = \"NAME\"");
    std::vector<std::pair<std::string, std::string>> skipped;  // name, reason
    for (const std::string& name : selection.preference) {
        try {
            auto found = selection.options.find(name);
            const option_table& options =
                found != selection.options.end() ? found->second : option_table{};
            std::filesystem::path file = loader.find(plugin_kind_of<Interface>, name);
            auto object = loader.create<Interface>(file, options);
            chosen = chosen_plugin{file, options, name, name + " (" + file.string() + ")"};
            for (const auto& [skipped_name, reason] : skipped)
                report_diagnostic({diagnostic_kind::plugin_skipped,
                                   std::string(kind) + " plugin '" + skipped_name +
                                       "' skipped: " + reason + "; using '" + name + "'"});
            return object;
        } catch (const plugin_error& e) {
            if (selection.strict) throw;
            skipped.emplace_back(name, e.what());
        }
    }
    // Said once, in the error: nothing was printed on the way.
    std::string reasons;
    for (const auto& [skipped_name, reason] : skipped)
        reasons += "\n  " + skipped_name + ": " + reason;
    throw plugin_error("no " + std::string(kind) + " plugin could be started:" + reasons);
}

/// One more instance of a plugin that start_plugin already chose.
template <class Interface>
std::shared_ptr<Interface> another(const plugin_loader& loader, const chosen_plugin& chosen) {
    return loader.create<Interface>(chosen.file, chosen.options);
}

/// How many workers `config` asks for; throws std::invalid_argument when the
/// flavor does not allow it.
int worker_count(const runtime_config& config) {
    if (config.flavor == "current_thread") {
        if (config.workers != 1)
            throw std::invalid_argument(
                "runtime.workers = " + std::to_string(config.workers) +
                ": the current_thread flavor runs exactly one worker; set workers = 1, or "
                "flavor = \"multi_thread\" for more");
        return 1;
    }
    if (config.flavor != "multi_thread")
        throw std::invalid_argument("runtime flavor '" + config.flavor +
                                    "' is unknown: use \"current_thread\" or \"multi_thread\"");
    if (config.workers < 0 || config.workers > max_workers)
        throw std::invalid_argument("runtime.workers = " + std::to_string(config.workers) +
                                    ": use 0 (one per CPU) up to " + std::to_string(max_workers));
    if (config.workers > 0) return config.workers;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

/// Which clock `config` asks for; throws std::invalid_argument for an unknown
/// one, or the virtual clock on more than one worker.
runtime_clock::kind clock_kind(const runtime_config& config) {
    if (config.clock == "monotonic") return runtime_clock::kind::monotonic;
    if (config.clock != "virtual")
        throw std::invalid_argument("runtime clock '" + config.clock +
                                    "' is unknown: use \"monotonic\" or \"virtual\"");
    // Virtual time may jump only when no worker can run anything, which one
    // worker knows when it parks; several would have to agree first.
    if (config.flavor != "current_thread")
        throw std::invalid_argument(
            "the virtual clock runs on the current_thread flavor only (it jumps when the one "
            "worker has nothing to run); set flavor = \"current_thread\", or clock = "
            "\"monotonic\"");
    return runtime_clock::kind::virtual_time;
}

}  // namespace

/// Everything a runtime owns: the worker group (which owns the plugin
/// objects) and the driver that runs it.
class runtime_core {
  public:
    explicit runtime_core(const runtime_config& config) {
        const int workers = worker_count(config);
        const runtime_clock::kind time = clock_kind(config);
        const bool multi = config.flavor == "multi_thread";
        description.flavor = config.flavor;
        description.workers = workers;
        description.clock = config.clock;
        plugin_loader loader(config.plugin_search_path,
                             plugin_load_policy{config.allow_insecure_plugins});
        chosen_plugin io_choice, timer_choice, lanes_choice;
        auto io = start_plugin<reactor>(loader, config.reactor, io_choice);
        auto timers = start_plugin<timer_driver>(loader, config.timer, timer_choice);
        auto lanes = start_plugin<lane_policy>(loader, config.lanes, lanes_choice);
        if (multi && io->query_interface(thread_bound_reactor_name))
            throw std::invalid_argument(
                "reactor " + io_choice.description +
                " is bound to one thread (such as uring with single_issuer), and a "
                "multi_thread runtime's workers share the reactor; use flavor = "
                "\"current_thread\", or configure a reactor that is not bound to one thread");
        if (time == runtime_clock::kind::virtual_time &&
            !timers->query_interface(timer_clock_binding_name))
            throw std::invalid_argument(
                "timer " + timer_choice.description +
                " cannot run on the virtual clock: it does not bind to the runtime's clock "
                "(rtkit.timer_clock.v1); use clock = \"monotonic\", or a timer plugin that binds, "
                "such as wheel or heap");
        description.reactor = io_choice.description;
        description.timer = timer_choice.description;
        description.lanes = lanes_choice.description;
        // The kernel's side of the reactor (its registrations) over the plugin.
        auto driver = std::make_shared<io_driver>(std::move(io), description.reactor);
        // The workers share the reactor: one cheaper for a single thread is
        // shared before any of them drives it.
        if (multi && !driver->share_before_handoff())
            throw std::runtime_error(driver->share_error());
        group = std::make_unique<worker_group>(
            multi ? worker_group::flavor::multi_thread : worker_group::flavor::current_thread,
            std::move(driver), config.huge_pages, time);
        group->activity()->name_plugins(io_choice.name, timer_choice.name);
        group->set_blocking_pool(std::make_shared<blocking_pool>(config.blocking));
        group->set_poll_before_park(config.poll_before_park);
        if (config.trace.enabled) group->start_trace(config.trace);
        // Each worker has its own timer driver and lane policy.
        group->add_worker(std::move(timers), std::move(lanes));
        for (int i = 1; i < workers; ++i)
            group->add_worker(another<timer_driver>(loader, timer_choice),
                              another<lane_policy>(loader, lanes_choice));
        root_region.home = &group->worker_at(0).get_handle();
        if (multi) {
            auto threads = std::make_unique<multi_thread_driver>(*group, root_region);
            threads->start();
            flavor = std::move(threads);
        } else {
            auto one_thread = std::make_unique<current_thread_driver>(*group, root_region);
            one_thread->adopt(held_worker(&group->worker_at(0)));
            flavor = std::move(one_thread);
        }
    }

    ~runtime_core() {
        shutdown();
        // Every task is complete now; a thread that drives none of the workers
        // may still be inside a wake of one of them (outside_wakes.hpp).
        RTKIT_CHAOS_POINT(runtime_destroying);
        wait_out_outside_wakes();
    }

    /// Stops the workers, then closes the blocking pool, waiting for its
    /// running calls until `blocking_until` (not at all without it). Returns
    /// how many calls were left running.
    std::size_t shutdown(std::optional<std::chrono::steady_clock::time_point> blocking_until = {}) {
        closing.store(true, std::memory_order_release);
        if (stopped.load(std::memory_order_acquire) || !flavor->shutdown()) return 0;
        stopped.store(true, std::memory_order_release);
        return close_blocking_pool(blocking_until);
    }

    shutdown_report shutdown_timeout(duration bound) {
        if (closing.exchange(true, std::memory_order_acq_rel)) return {};
        const std::uint64_t finished_before = group->finished_tasks();
        const instant deadline = saturating_add(group->worker_at(0).now(), bound);
        // Blocking calls run in real time, whatever clock the timer driver keeps.
        const instant blocking_deadline = saturating_add(std::chrono::steady_clock::now(), bound);
        flavor->drain_until(deadline);
        shutdown_report report;
        report.finished = group->finished_tasks() - finished_before;
        report.cancelled = live_tasks();
        report.blocking_left = shutdown(blocking_deadline);
        return report;
    }

    std::size_t close_blocking_pool(std::optional<std::chrono::steady_clock::time_point> until) {
        const std::size_t left = group->blocking().close(until);
        if (left > 0)
            report_diagnostic({diagnostic_kind::blocking_calls_left,
                               std::to_string(left) +
                                   " blocking call(s) still running at shutdown were left to end "
                                   "on their own threads; their results will be dropped"});
        return left;
    }

    std::size_t live_tasks() { return group->live_tasks() + flavor->roots_outside_stores(); }

    std::exception_ptr drive(root_reference& root) {
        // A root may run off the workers (a multi_thread root always does):
        // what it spawns gets frames on this runtime's pages all the same.
        scoped_frame_pages pages(group->huge_pages());
        return flavor->drive(root);
    }

    runtime_description description;
    std::unique_ptr<worker_group> group;
    /// Every task belongs to this region or one below it. Nothing closes it.
    region_node root_region{region_node::never_closed};
    /// The flavor: how block_on runs, how the runtime drains and stops.
    std::unique_ptr<runtime_driver> flavor;
    /// Set when shutdown begins: no block_on may start (any thread reads it).
    std::atomic<bool> closing{false};
    /// Set once the workers are retired: their stores must not be read.
    std::atomic<bool> stopped{false};
};

}  // namespace detail

runtime::runtime(const runtime_config& config)
    : core_(std::make_unique<detail::runtime_core>(config)) {}

runtime::~runtime() = default;

void runtime::shutdown() {
    core_->shutdown();
}

shutdown_report runtime::shutdown_timeout(duration bound) {
    return core_->shutdown_timeout(bound);
}

bool runtime::is_quiescent() const {
    if (core_->stopped.load(std::memory_order_acquire)) return true;
    // Queues first: a task on its way from a queue into a store is then
    // found in one place or the other.
    return !core_->group->spawns_in_flight() && core_->live_tasks() == 0;
}

const runtime_description& runtime::description() const noexcept {
    return core_->description;
}

std::shared_ptr<const runtime_activity> runtime::activity() const noexcept {
    return core_->group->activity();
}

void runtime::set_poll_before_park(std::chrono::microseconds d) noexcept {
    core_->group->set_poll_before_park(d);
}

std::chrono::microseconds runtime::poll_before_park() const noexcept {
    return std::chrono::duration_cast<std::chrono::microseconds>(core_->group->poll_before_park());
}

runtime_metrics runtime::metrics() const {
    runtime_metrics m;
    core_->group->collect(m);
    m.roots_running = core_->flavor->roots_running();
    m.block_on_reserved_borrows = core_->flavor->reserved_borrows();
    return m;
}

std::exception_ptr runtime::drive(detail::task_header* root, detail::take_root_result take,
                                  void* into) {
    detail::root_reference reference(root, take, into);
    if (core_->closing.load(std::memory_order_acquire))
        throw std::logic_error("block_on on a runtime that was shut down");
    return core_->drive(reference);
}

}  // namespace rtkit
