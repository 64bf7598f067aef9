#pragma once
// Checks plugin names and plugin option tables against the plugins on the
// search path, whose descriptors declare their options. Kept apart from the
// TOML reader so it sees only positions and values, not toml++ nodes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rtkit/config/schema.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtkit::config::detail {

/// A 1-based line and column in one of the layers the reader merged.
struct source_position {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    std::size_t layer = 0;  ///< which source (file, --set, variable): the reader's numbering
};

/// One `key = value` of a plugin's table.
struct plugin_option_entry {
    std::string key;
    source_position key_at;
    source_position value_at;
    option_value value;
    std::string value_description;  ///< the value in a message: "a string", "'many'"
};

/// One `[reactor.NAME]` (or timer, lanes) table as written.
struct plugin_table_entry {
    const table_spec* table = nullptr;
    std::string plugin;
    source_position at;  ///< the NAME in the table header
    std::vector<plugin_option_entry> options;
};

/// Where a `plugin = ...` preference was written.
struct preference_entry {
    const table_spec* table = nullptr;
    source_position at;
};

/// What one source wrote about plugins.
struct plugin_mentions {
    std::vector<preference_entry> preferences;
    std::vector<plugin_table_entry> tables;
};

/// A problem the check found, where the offending text was written.
struct plugin_problem {
    source_position at;
    std::string message;
};

/// The problems of `mentions`, with `config` (the merged result of every
/// layer) giving the search path and preferences.
///
/// A preference is an error when the runtime could not start any plugin of it
/// (no name is known; with strict, the first is unknown): names that are not
/// built here may stay in a fallback list. A plugin table is an error when it
/// names an unknown plugin that is not in the preference; its options are
/// checked against the plugin's declarations (key, type, range, allowed value).
std::vector<plugin_problem> check_plugin_mentions(const plugin_mentions& mentions,
                                                  const runtime_config& config);

}  // namespace rtkit::config::detail
