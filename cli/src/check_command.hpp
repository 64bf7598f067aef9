#pragma once
// rtctl check SCRIPT: parse and check a script without running it.
#include <filesystem>

namespace rtctl {

/// Exit 0 when the script is valid, 2 with its error as `run` would report it.
int check_command(const std::filesystem::path& script);

}  // namespace rtctl
