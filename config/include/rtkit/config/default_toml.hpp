#pragma once
// config/default.toml, embedded at build time for `rtctl config default`.
#include <string_view>

namespace rtkit::config {

/// The text of config/default.toml as it was when this library was built.
std::string_view default_toml() noexcept;

}  // namespace rtkit::config
