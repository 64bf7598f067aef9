#pragma once
// Reads a TOML document into a runtime_config against the schema. The only
// translation unit that includes toml++, which is slow to compile.
#include <filesystem>
#include <string_view>

#include "rtkit/config/load.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit::config::detail {

/// Parses `text` and applies every key in it over `config`, recording in
/// `origins` (when not null) "SOURCE:LINE:COLUMN" for every key it set. Throws
/// config_error listing every problem (syntax, unknown keys, wrong types, bad
/// values, unknown plugins and plugin options the plugin does not declare).
void read_toml(std::string_view text, std::string_view source_name,
               const std::filesystem::path& base_dir, runtime_config& config,
               value_origins* origins = nullptr);

}  // namespace rtkit::config::detail
