#pragma once
// rtctl plugins list|info: what the loader can load, and what each plugin
// declares (its options with type, default, range or allowed values, help).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rtctl {

struct plugins_options {
    /// A TOML file whose [plugins] search_path extends the search path.
    std::optional<std::filesystem::path> config_file;
    /// info: the plugin's name, and optionally its kind when names collide.
    std::string name;
    std::string kind;
    /// info: also the options meant for tests only (rtkit::is_test_only_option).
    bool test_options = false;
};

/// rtctl plugins list: one line per loadable plugin in search order, then the
/// files that were refused and why. Exit 0 (2 for a bad --config).
int plugins_list_command(const plugins_options& options);

/// rtctl plugins info NAME: the descriptor and options of one plugin. Exit 0,
/// or 2 when no plugin (or more than one kind) has that name.
int plugins_info_command(const plugins_options& options);

}  // namespace rtctl
