#pragma once
// Loading a runtime_config from TOML and from `--set key=value` overrides.
//
// Precedence (ARCHITECTURE.md): --set over RTKIT_* environment variables over
// the TOML file over the defaults of runtime_config{}. Every function here
// throws config_error with file:line:column on bad input and never returns a
// partly applied result.
#include <filesystem>
#include <string_view>

#include "rtkit/config/config_error.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit::config {

/// Reads a TOML file over the defaults. Relative [plugins] search_path entries
/// are resolved against the file's directory.
runtime_config load_file(const std::filesystem::path& file);

/// Reads TOML text over the defaults. `source_name` names it in errors;
/// relative search_path entries are resolved against `base_dir` (the current
/// directory when empty).
runtime_config load_string(std::string_view text, std::string_view source_name,
                           const std::filesystem::path& base_dir = {});

/// Applies one "table.key=value" override, as given to `rtctl --set`. The value
/// is read as the key's type: strings need no quotes, plugin preferences and
/// paths may be comma-separated lists, booleans are true/false. A plugin option
/// is set with "reactor.epoll.events_per_poll=64". Relative paths are resolved
/// against the current directory. On error `config` is left unchanged.
void apply_override(runtime_config& config, std::string_view assignment);

}  // namespace rtkit::config
