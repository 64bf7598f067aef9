#pragma once
// rtctl run --stats: the runtime's counters after a run, as a table for
// people or as one JSON object for scripts.
#include <chrono>
#include <string>

#include "rtkit/metrics.hpp"

namespace rtctl {

/// The table --stats prints: the runtime's counters (kernel/README.md says
/// what each means), then one column per worker when there is more than one.
std::string stats_table(const rtkit::runtime_metrics& metrics, std::chrono::nanoseconds elapsed);

/// One JSON object on one line: every runtime_metrics field under its own
/// name (durations in nanoseconds, suffixed _ns), "elapsed_ns", and
/// "workers", an array of the per-worker counters.
std::string stats_json(const rtkit::runtime_metrics& metrics, std::chrono::nanoseconds elapsed);

}  // namespace rtctl
