#pragma once
// Building a runtime from a TOML file in one call, for programs that embed rtkit.
#include <filesystem>

#include "rtkit/runtime.hpp"

namespace rtkit::config {

/// Whether RTKIT_<TABLE>_<KEY> environment variables override the file.
enum class environment_layer {
    /// The file over the defaults, nothing else: the program behaves the same
    /// whatever its environment.
    ignore,
    /// RTKIT_* variables over the file, as rtctl reads them (config/README.md).
    apply,
};

/// A runtime configured by `file` (TOML, over the defaults of
/// config/default.toml), with the RTKIT_* variables over it when asked:
///
///     rtkit::runtime rt = rtkit::config::make_runtime("runtime.toml");
///
/// "-" reads the file from standard input. Throws config_error with every
/// problem in the file (file:line:column, the nearest valid key) before any
/// plugin is loaded, and plugin_error when a plugin cannot start.
runtime make_runtime(const std::filesystem::path& file,
                     environment_layer environment = environment_layer::ignore);

}  // namespace rtkit::config
