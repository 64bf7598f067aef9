#pragma once
// rtctl's subcommands; each returns the process exit status (exit_codes.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rtctl {

struct run_options {
    std::filesystem::path script;
    /// TOML file; without one, the built-in defaults (config/default.toml's values).
    std::optional<std::filesystem::path> config_file;
    /// "table.key=value", applied in order after the file.
    std::vector<std::string> overrides;
};

/// rtctl run: parse, configure, build the runtime, run the script's root task.
int run_command(const run_options& options);

/// rtctl check: parse only; errors as `run` would report them.
int check_command(const std::filesystem::path& script);

}  // namespace rtctl
