#pragma once
// rtctl completion bash: a bash completion script for rtctl, made from the
// command line's own declarations, so it knows every command and option.
#include <string>

namespace CLI {
class App;
}

namespace rtctl {

/// Declares `completion` on `app`; `shell` must outlive the parse.
CLI::App* add_completion_command(CLI::App& app, std::string& shell);

/// Prints the script for `shell` (only "bash" exists) for the commands of `app`.
int completion_command(const CLI::App& app, const std::string& shell);

}  // namespace rtctl
