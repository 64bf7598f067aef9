#pragma once
// Checks shared by every source of configuration values (TOML and --set):
// allowed values, plugin names, path resolution.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/config/schema.hpp"

namespace rtkit::config::detail {

/// Checks `value` (already of `key.type`) against the key's rules and
/// normalises it (relative paths become base_dir / path). Returns the error
/// message, or nothing when the value is good.
std::optional<std::string> check_value(const key_spec& key, config_value& value,
                                       const std::filesystem::path& base_dir);

/// "table.name"
std::string dotted_name(const key_spec& key);

/// `text` in single quotes. (Built by appending: GCC 12 at -O3 gives a false
/// -Wrestrict for "'" + std::string&&.)
std::string quote(std::string_view text);

/// "a", "b" or "c": the values a key or a plugin option allows, for a message.
std::string quoted_list(const std::vector<std::string_view>& values);

/// quote(dotted_name(key))
std::string quoted_name(const key_spec& key);

}  // namespace rtkit::config::detail
