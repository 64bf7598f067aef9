#pragma once
// rtctl run SCRIPT: parse, configure, build the runtime, run the script.
// Its options are declared with the others, in command_options.cpp.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "rtkit/interp/interpreter.hpp"

namespace rtctl {

struct run_options {
    std::filesystem::path script;
    /// TOML file; without one, the built-in defaults (config/default.toml's values).
    std::optional<std::filesystem::path> config_file;
    /// "table.key=value", applied in order after the file.
    std::vector<std::string> overrides;
    /// The interpreter's step budget (0: no limit).
    std::uint64_t max_steps = rtkit::interp::default_max_steps;
    /// The interpreter's limit on live tasks (0: none).
    std::uint64_t max_tasks = rtkit::interp::default_max_tasks;
    /// The interpreter's time limit in nanoseconds (0: none); --max-time
    /// takes a duration as scripts write it and stores it here.
    std::int64_t max_time_ns = 0;
    /// --lab: one worker, the lab lane policy seeded with `seed`, virtual time.
    bool lab = false;
    std::uint64_t seed = 0;
    /// --trace FILE: trace events go there (the configuration's [trace]
    /// enabled and file).
    std::optional<std::filesystem::path> trace_file;
    /// --stats: "" (none), "table" or "json": the runtime's counters on
    /// stderr after the run.
    std::string stats;
    /// --progress: a live status line on stderr while it is a terminal.
    bool progress = false;
};

/// Exit 0 when the script succeeded, 1 when it failed or the runtime could
/// not start, 2 for bad input (an unreadable script, a syntax error, a bad
/// configuration).
int run_command(const run_options& options);

}  // namespace rtctl
