#include "run_stats.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace rtctl {
namespace {

using counter_row = std::pair<const char*, std::uint64_t>;

std::uint64_t nanoseconds(rtkit::duration d) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

/// The runtime's totals, in the order of kernel/README.md's table.
std::vector<counter_row> runtime_rows(const rtkit::runtime_metrics& m) {
    return {{"tasks_spawned", m.tasks_spawned},
            {"tasks_completed", m.tasks_completed},
            {"tasks_cancelled", m.tasks_cancelled},
            {"tasks_panicked", m.tasks_panicked},
            {"tasks_alive", m.tasks_alive},
            {"tasks_peak_alive", m.tasks_peak_alive},
            {"polls", m.polls},
            {"cancel_lane_dispatches", m.cancel_lane_dispatches},
            {"wakes_same_worker", m.wakes_same_worker},
            {"wakes_other_worker", m.wakes_other_worker},
            {"wakes_outside", m.wakes_outside},
            {"steals", m.steals},
            {"injection_queue_depth", m.injection_queue_depth},
            {"parks", m.parks},
            {"time_parked_ns", nanoseconds(m.time_parked)},
            {"reactor_polls", m.reactor_polls},
            {"reactor_events", m.reactor_events},
            {"timers_armed", m.timers_armed},
            {"timers_fired", m.timers_fired},
            {"timers_cancelled", m.timers_cancelled},
            {"timers_pending", m.timers_pending},
            {"queued", m.queued},
            {"inboxes_pending", m.inboxes_pending},
            {"workers_dispatching", m.workers_dispatching},
            {"roots_running", m.roots_running},
            {"block_on_reserved_borrows", m.block_on_reserved_borrows},
            {"io_registrations", m.io_registrations}};
}

/// One worker's counters, in worker_metrics' order.
std::vector<counter_row> worker_rows(const rtkit::worker_metrics& w) {
    return {{"tasks_spawned", w.tasks_spawned},
            {"tasks_ended", w.tasks_ended},
            {"tasks_cancelled", w.tasks_cancelled},
            {"tasks_panicked", w.tasks_panicked},
            {"polls", w.polls},
            {"cancel_lane_dispatches", w.cancel_lane_dispatches},
            {"wakes_same_worker", w.wakes_same_worker},
            {"wakes_other_worker", w.wakes_other_worker},
            {"steals", w.steals},
            {"steal_batches", w.steal_batches},
            {"injected_taken", w.injected_taken},
            {"parks", w.parks},
            {"time_parked_ns", nanoseconds(w.time_parked)},
            {"reactor_polls", w.reactor_polls},
            {"reactor_events", w.reactor_events},
            {"timers_armed", w.timers_armed},
            {"timers_fired", w.timers_fired},
            {"timers_cancelled", w.timers_cancelled},
            {"queued", w.queued},
            {"inbox_pending", w.inbox_pending ? 1u : 0u},
            {"dispatching", w.dispatching ? 1u : 0u}};
}

std::string padded(std::string text, std::size_t width, bool right) {
    if (text.size() >= width) return text;
    const std::string pad(width - text.size(), ' ');
    return right ? pad + text : text + pad;
}

}  // namespace

std::string stats_table(const rtkit::runtime_metrics& metrics, std::chrono::nanoseconds elapsed) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.6f", static_cast<double>(elapsed.count()) / 1e9);
    std::string out = "rtctl: runtime statistics (" + std::string(seconds) + " s, " +
                      std::to_string(metrics.workers.size()) + " worker" +
                      (metrics.workers.size() == 1 ? "" : "s") + ")\n";
    constexpr std::size_t name_width = 24, number_width = 14;
    const std::vector<counter_row> totals = runtime_rows(metrics);
    if (metrics.workers.size() <= 1) {
        for (const auto& [name, value] : totals)
            out += "  " + padded(name, name_width, false) +
                   padded(std::to_string(value), number_width, true) + '\n';
        return out;
    }
    out += "  " + padded("", name_width, false) + padded("total", number_width, true);
    for (std::size_t i = 0; i < metrics.workers.size(); ++i)
        out += padded("worker " + std::to_string(i), number_width, true);
    out += '\n';
    // A worker's column shows the counter of the same name, where it has one.
    std::vector<std::vector<counter_row>> per_worker;
    for (const rtkit::worker_metrics& w : metrics.workers)
        per_worker.push_back(worker_rows(w));
    auto worker_value = [&](std::size_t worker, std::string_view name) -> std::string {
        for (const auto& [row_name, value] : per_worker[worker])
            if (row_name == name) return std::to_string(value);
        return "";
    };
    for (const auto& [name, value] : totals) {
        out += "  " + padded(name, name_width, false) +
               padded(std::to_string(value), number_width, true);
        for (std::size_t i = 0; i < per_worker.size(); ++i)
            out += padded(worker_value(i, name), number_width, true);
        out += '\n';
    }
    return out;
}

std::string stats_json(const rtkit::runtime_metrics& metrics, std::chrono::nanoseconds elapsed) {
    nlohmann::ordered_json object;
    object["elapsed_ns"] = elapsed.count();
    for (const auto& [name, value] : runtime_rows(metrics))
        object[name] = value;
    object["workers"] = nlohmann::ordered_json::array();
    for (const rtkit::worker_metrics& w : metrics.workers) {
        nlohmann::ordered_json worker;
        for (const auto& [name, value] : worker_rows(w))
            worker[name] = value;
        object["workers"].push_back(std::move(worker));
    }
    return object.dump() + '\n';
}

}  // namespace rtctl
