#pragma once
// rtctl config check|show|default: validate a configuration, print the
// effective one with where each value came from, print the defaults.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rtctl {

struct config_options {
    /// TOML file (required by check, optional for show).
    std::optional<std::filesystem::path> file;
    /// "table.key=value" overrides, applied after the file and the environment.
    std::vector<std::string> overrides;
    /// show: also the test-only plugin options left at their defaults.
    bool test_options = false;
};

/// rtctl config check FILE: 0 when valid, 2 with every error on stderr.
int config_check_command(const config_options& options);

/// rtctl config show [FILE]: the effective configuration as TOML, each value
/// commented with its origin (default, FILE:LINE:COLUMN, env NAME, --set).
int config_show_command(const config_options& options);

/// rtctl config default: config/default.toml as built in.
int config_default_command();

}  // namespace rtctl
