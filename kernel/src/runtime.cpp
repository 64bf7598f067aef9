#include "rtkit/runtime.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "current_thread_driver.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/plugin_loader.hpp"
#include "scheduler.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

namespace rtkit {
namespace detail {

namespace {

/// Creates the first plugin of `selection` that starts. Each one skipped is
/// reported once on stderr with its reason; a strict selection fails instead.
template <class Interface>
std::shared_ptr<Interface> start_plugin(const plugin_loader& loader,
                                        const plugin_selection& selection, std::string& chosen) {
    const std::string_view kind = kind_name(plugin_kind_of<Interface>);
    if (selection.preference.empty())
        throw plugin_error("no " + std::string(kind) + " plugin configured: set [" +
                           std::string(kind) + "] plugin = \"NAME\"");
    std::string reasons;
    for (const std::string& name : selection.preference) {
        try {
            auto found = selection.options.find(name);
            const option_table& options =
                found != selection.options.end() ? found->second : option_table{};
            std::filesystem::path file = loader.find(plugin_kind_of<Interface>, name);
            auto object = loader.create<Interface>(file, options);
            chosen = name + " (" + file.string() + ")";
            return object;
        } catch (const plugin_error& e) {
            if (selection.strict) throw;
            std::fprintf(stderr, "rtkit: %.*s plugin '%s' skipped: %s\n",
                         static_cast<int>(kind.size()), kind.data(), name.c_str(), e.what());
            reasons += "\n  " + name + ": " + e.what();
        }
    }
    throw plugin_error("no " + std::string(kind) + " plugin could be started:" + reasons);
}

}  // namespace

/// Everything a runtime owns. The plugins are held by the worker; the
/// scheduler and the driver outlive it.
class runtime_core {
  public:
    explicit runtime_core(const runtime_config& config) {
        if (config.flavor != "current_thread")
            throw std::invalid_argument("runtime flavor '" + config.flavor +
                                        "' is not available yet: use \"current_thread\"");
        if (config.workers != 1)
            throw std::invalid_argument(
                "runtime.workers = " + std::to_string(config.workers) +
                ": the current_thread flavor runs exactly one worker; set workers = 1 (more "
                "workers need flavor \"multi_thread\", which is not available yet)");
        description.flavor = config.flavor;
        plugin_loader loader(config.plugin_search_path,
                             plugin_load_policy{config.allow_insecure_plugins});
        auto io = start_plugin<reactor>(loader, config.reactor, description.reactor);
        auto timers = start_plugin<timer_driver>(loader, config.timer, description.timer);
        auto lanes = start_plugin<lane_policy>(loader, config.lanes, description.lanes);
        sched = std::make_unique<scheduler>(*io, *timers);
        auto w = std::make_unique<worker>(*sched, io, timers, std::move(lanes));
        sched->set_home(w.get());
        store = &w->store();
        // The scheduler borrows the reactor and the clock; keep them alive as long.
        io_keepalive = std::move(io);
        timers_keepalive = std::move(timers);
        root_region.sched = sched.get();
        driver = std::make_unique<current_thread_driver>(*sched, root_region);
        driver->adopt(std::move(w));
    }

    ~runtime_core() { shutdown(); }

    void shutdown() {
        closing.store(true, std::memory_order_release);
        if (stopped.exchange(true, std::memory_order_acq_rel)) return;
        driver->shutdown_from_caller();
    }

    shutdown_report shutdown_timeout(duration bound) {
        if (closing.exchange(true, std::memory_order_acq_rel)) return {};
        const std::uint64_t finished_before = store->removed_total();
        driver->drain_until(saturating_add(sched->now(), bound));
        shutdown_report report;
        report.finished = store->removed_total() - finished_before;
        report.cancelled = store->size();
        shutdown();
        return report;
    }

    runtime_description description;
    std::shared_ptr<reactor> io_keepalive;
    std::shared_ptr<timer_driver> timers_keepalive;
    std::unique_ptr<scheduler> sched;
    /// Every task belongs to this region or one below it.
    region_node root_region;
    std::unique_ptr<current_thread_driver> driver;
    const task_store* store = nullptr;  ///< the worker's, for is_quiescent
    /// Set when shutdown begins: no block_on may start (any thread reads it).
    std::atomic<bool> closing{false};
    /// Set when the worker is about to be retired: its store must not be read.
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
    // After shutdown the worker (and its store) is gone.
    return core_->stopped.load(std::memory_order_acquire) || core_->store->size() == 0;
}

const runtime_description& runtime::description() const noexcept {
    return core_->description;
}

std::exception_ptr runtime::drive(detail::task_header* root, detail::take_root_result take,
                                  void* into) {
    detail::root_reference reference(root, take, into);
    if (core_->closing.load(std::memory_order_acquire))
        throw std::logic_error("block_on on a runtime that was shut down");
    return core_->driver->drive(reference);
}

}  // namespace rtkit
