#pragma once
// Loading a runtime_config from TOML and from `--set key=value` overrides.
//
// Precedence (ARCHITECTURE.md): --set over RTKIT_* environment variables over
// the TOML file over the defaults of runtime_config{}. Every function here
// throws config_error with file:line:column on bad input and never returns a
// partly applied result.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/config/config_error.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit::config {

/// Where each value came from, by dotted key ("reactor.plugin",
/// "reactor.epoll.events_per_poll"): "FILE:LINE:COLUMN", "env RTKIT_NAME" or
/// "--set". A key that is absent has its default.
using value_origins = std::map<std::string, std::string, std::less<>>;

/// Every layer of one configuration, lowest precedence first after the defaults.
struct config_sources {
    /// A TOML file, or none for the defaults alone.
    std::optional<std::filesystem::path> file;
    /// Read RTKIT_<TABLE>_<KEY> variables (schema keys only, not plugin options).
    bool environment = true;
    /// "table.key=value" overrides, applied in order, last.
    std::vector<std::string> overrides;
    /// Check plugin names and plugin tables against the plugins found on the
    /// search path. Off for a tool that examines the plugins itself (`rtctl
    /// plugins`), which needs the search path even when a plugin is refused.
    bool check_plugins = true;
};

/// A configuration and where each of its values came from.
struct loaded_config {
    runtime_config config;
    value_origins origins;
};

/// Defaults, then the file, then the environment, then each override:
/// --set > RTKIT_* > file > defaults. The layers are merged first and the
/// merged result is checked, as one file would be. Throws config_error (every
/// problem, the file's first, then each variable's and override's).
loaded_config load(const config_sources& sources);

/// Applies every RTKIT_<TABLE>_<KEY> variable that is set (see
/// environment_name in schema.hpp), read like a --set value. Errors name the
/// variable as their source. Records "env NAME" in `origins` when not null.
void apply_environment(runtime_config& config, value_origins* origins = nullptr);

/// Reads a TOML file over the defaults. Relative [plugins] search_path entries
/// are resolved against the file's directory.
runtime_config load_file(const std::filesystem::path& file);

/// Reads TOML text over the defaults. `source_name` names it in errors;
/// relative search_path entries are resolved against `base_dir` (the current
/// directory when empty).
runtime_config load_string(std::string_view text, std::string_view source_name,
                           const std::filesystem::path& base_dir = {});

/// Applies one "table.key=value" override, as given to `rtctl --set`, and
/// checks it as the same key in a TOML file would be (plugin options against
/// the plugin's declaration). The value is TOML, or a bare string when it is
/// not TOML (for a plugin preference a list split at ',', for a path list at
/// ':'); config/README.md has the rules. A plugin option is set with
/// "reactor.epoll.events_per_poll=64". Relative paths are resolved against the
/// current directory. On error `config` is left unchanged.
void apply_override(runtime_config& config, std::string_view assignment);

}  // namespace rtkit::config
