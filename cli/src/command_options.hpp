#pragma once
// Every rtctl command's options, declared on the command line parser (CLI11).
// CLI11 takes seconds to compile in each file that includes it, so the
// commands' own files do not: their options live here, with main.cpp (the
// parse) and completion_command.cpp (which walks the parser) the only other
// files that include it.
#include <filesystem>

#include "check_command.hpp"
#include "config_command.hpp"
#include "conformance_command.hpp"
#include "inspect_command.hpp"
#include "plugins_command.hpp"
#include "run_command.hpp"

namespace CLI {
class App;
}

namespace rtctl {

/// The subcommands `config` declares; main tests which one was chosen.
struct config_commands {
    CLI::App* check = nullptr;
    CLI::App* show = nullptr;
    CLI::App* print_default = nullptr;
};

/// The subcommands `plugins` declares; main tests which one was chosen.
struct plugins_commands {
    CLI::App* list = nullptr;
    CLI::App* info = nullptr;
};

/// Each declares its command and options on `app` and returns the command (or
/// its subcommands) so main can test which was chosen; `options` must
/// outlive the parse.
CLI::App* add_run_command(CLI::App& app, run_options& options);
CLI::App* add_check_command(CLI::App& app, std::filesystem::path& script);
CLI::App* add_inspect_command(CLI::App& app, inspect_options& options);
config_commands add_config_command(CLI::App& app, config_options& options);
plugins_commands add_plugins_command(CLI::App& app, plugins_options& options);
CLI::App* add_conformance_command(CLI::App& app, conformance_options& options);

}  // namespace rtctl
