#pragma once
// Reads configuration layers (a TOML file, then `--set` and RTKIT_*
// assignments) into a runtime_config against the schema. The only translation
// unit that includes toml++, which is slow to compile.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "assignment.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit::config::detail {

/// A TOML file's text, and how it is named and resolved.
struct toml_file {
    std::string_view text;
    std::string name;                ///< in errors and origins
    std::filesystem::path base_dir;  ///< relative search paths are resolved against it
};

/// Parses the file (when not null) and each assignment, merges them into one
/// document in that order (a later value replaces an earlier one, tables
/// merge), checks the merged document and applies it over `config`, recording
/// in `origins` (when not null) where each value it set came from. The merged
/// document is what is checked, so a --set can fix or break what a file says.
/// Plugin names and tables are checked against the plugins on the search path
/// unless `check_plugins` is false.
/// Throws config_error listing every problem (syntax, unknown keys, wrong
/// types, bad values, unknown plugins, plugin options the plugin does not
/// declare), the file's first, then each assignment's in order; `config` is
/// then unchanged.
void read_toml(const toml_file* file, std::span<const assignment> assignments,
               runtime_config& config, value_origins* origins = nullptr, bool check_plugins = true);

}  // namespace rtkit::config::detail
