#pragma once
// Reading a script file for rtctl.
#include <filesystem>
#include <memory>

#include "rtkit/script/source.hpp"

namespace rtctl {

/// The script's text (standard input for "-", named "<stdin>"), or nullptr
/// after printing why it cannot be read (rtkit/config/input_file.hpp: regular
/// files of at most 16 MiB).
std::shared_ptr<const rtkit::script::source_file> read_script(const std::filesystem::path& path);

}  // namespace rtctl
