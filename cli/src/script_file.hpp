#pragma once
// Reading a script file for rtctl.
#include <filesystem>
#include <memory>

#include "rtkit/script/source.hpp"

namespace rtctl {

/// The file's text, or nullptr after printing why it cannot be read.
std::shared_ptr<const rtkit::script::source_file> read_script(const std::filesystem::path& path);

}  // namespace rtctl
