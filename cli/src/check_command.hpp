#pragma once
// rtctl check SCRIPT: parse and check a script without running it.
#include <filesystem>

namespace CLI {
class App;
}

namespace rtctl {

/// Declares `check` on `app`; `script` must outlive the parse.
CLI::App* add_check_command(CLI::App& app, std::filesystem::path& script);

/// Exit 0 when the script is valid, 2 with its error as `run` would report it.
int check_command(const std::filesystem::path& script);

}  // namespace rtctl
