#pragma once
// The configuration schema, written once as data: every table, every key, its
// type, default, allowed values and help. The TOML loader, `--set`, the
// default file's test and the reference in config/README.md all read it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rtkit/runtime_config.hpp"

namespace rtkit::config {

/// What a key holds.
enum class value_type {
    string,
    boolean,
    integer,
    /// One plugin name, or an array of them in order of preference.
    plugin_preference,
    /// An array of directories; relative ones are resolved against the
    /// directory of the file that names them.
    path_list,
};

/// "a string", "a boolean", ... for messages.
std::string_view describe(value_type type) noexcept;

/// A value read from any source, after its type was checked. A
/// plugin_preference or path_list is always a list, even if written as one string.
using config_value = std::variant<bool, std::int64_t, std::string, std::vector<std::string>>;

/// One key of one table.
struct key_spec {
    std::string_view table;  ///< e.g. "runtime"
    std::string_view name;   ///< e.g. "flavor"
    value_type type;
    std::string_view default_toml;  ///< the default as config/default.toml writes it
    std::string_view allowed;       ///< "a|b" for a closed set of strings, or empty
    std::string_view help;          ///< one line
    /// Stores an already checked value of `type` into the configuration.
    void (*assign)(runtime_config& config, const config_value& value);
    /// The key's current value in the configuration (for `rtctl config show`).
    config_value (*read)(const runtime_config& config);
    /// value_type::integer only: the inclusive range of accepted values.
    std::int64_t min_value = 0;
    std::int64_t max_value = 0;
};

/// One top-level table.
struct table_spec {
    std::string_view name;
    std::string_view help;
    /// For [reactor], [timer] and [lanes]: the selection this table fills. Its
    /// sub-tables ([reactor.epoll], ...) hold the options of the plugin they name.
    plugin_selection runtime_config::*plugin_kind = nullptr;
};

/// Every table, in the order config/default.toml lists them.
std::span<const table_spec> tables() noexcept;

/// Every key, grouped by table in the order of tables().
std::span<const key_spec> keys() noexcept;

/// The spec of `table`.`name`, or nullptr.
const key_spec* find_key(std::string_view table, std::string_view name) noexcept;

/// The spec of top-level table `name`, or nullptr.
const table_spec* find_table(std::string_view name) noexcept;

/// The names of the keys of `table`, for suggestions.
std::vector<std::string_view> key_names(std::string_view table);

/// The names of the top-level tables, for suggestions.
std::vector<std::string_view> table_names();

/// "table.key" for every key, for suggestions on `--set`.
std::vector<std::string> dotted_key_names();

/// The environment variable that overrides `key`: RTKIT_<TABLE>_<NAME> in
/// upper case, e.g. RTKIT_REACTOR_PLUGIN.
std::string environment_name(const key_spec& key);

}  // namespace rtkit::config
