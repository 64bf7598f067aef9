#pragma once
// The benchmark workloads of shared/bench/WORKLOADS.md, each on a given runtime.
#include <cstdint>
#include <string>
#include <string_view>

#include "rtkit/runtime.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtbench {

/// What one workload run produced; printed as the result line.
struct result {
    std::string workload;  ///< e.g. "spawn_join_st"
    std::uint64_t n = 0;   ///< operations
    double seconds = 0;    ///< wall time of the measured part
    std::int64_t checksum = 0;
    std::string extra;  ///< more key=value fields, space-separated
};

/// Adjusts `config` to the runtime workload `id` is defined on (W2 runs on
/// the multi_thread flavor with two workers, unless `config` already is
/// multi_thread).
void shape_runtime(std::string_view id, rtkit::runtime_config& config);

/// Runs workload `id` (W1, W2, W3, W4, W5, W6, W8, W9) on `rt`. Throws
/// std::invalid_argument for an unknown id.
result run_workload(std::string_view id, rtkit::runtime& rt);

/// The ids run_workload knows, for help texts.
std::string_view known_workloads();

}  // namespace rtbench
