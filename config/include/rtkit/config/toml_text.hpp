#pragma once
// Writing configuration values back as TOML, for `rtctl config show`.
#include <string>
#include <string_view>

#include "rtkit/config/schema.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit::config {

/// `text` as a TOML basic string, quotes and escapes included.
std::string toml_string(std::string_view text);

/// A value of `type` as TOML would write it. A plugin preference of one name
/// is written as a string ("epoll"), as config/default.toml does.
std::string to_toml(const config_value& value, value_type type);

/// A plugin option value as TOML would write it.
std::string to_toml(const option_value& value);

}  // namespace rtkit::config
