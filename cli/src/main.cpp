// rtctl: runs async scripts on an rtkit runtime built from TOML.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"
#include "config_command.hpp"
#include "conformance_command.hpp"
#include "exit_codes.hpp"
#include "plugins_command.hpp"

int main(int argc, char** argv) {
    CLI::App app{"rtctl: run async scripts on an rtkit runtime built from TOML", "rtctl"};
    app.require_subcommand(1);

    rtctl::run_options run;
    CLI::App* run_command =
        app.add_subcommand("run", "run a script on a runtime built from the configuration");
    run_command
        ->add_option("script", run.script, "the script to run (.rts; '-' reads standard input)")
        ->required();
    run_command->add_option("--config,-c", run.config_file,
                            "runtime configuration (TOML); default: the built-in defaults, "
                            "the values of config/default.toml");
    // One KEY=VALUE per --set, so a script path after it is not swallowed.
    run_command
        ->add_option("--set", run.overrides,
                     "override one configuration key, e.g. --set reactor.plugin=epoll "
                     "(repeatable; applied after --config)")
        ->allow_extra_args(false);

    std::filesystem::path check_script;
    CLI::App* check_command = app.add_subcommand(
        "check", "parse a script and report its errors without running it (exit 0 when valid)");
    check_command
        ->add_option("script", check_script, "the script to check (.rts; '-' reads standard input)")
        ->required();

    rtctl::conformance_options conformance;
    CLI::App* conformance_command = rtctl::add_conformance_command(app, conformance);

    rtctl::config_options config;
    const rtctl::config_commands config_commands = rtctl::add_config_command(app, config);
    rtctl::plugins_options plugins;
    const rtctl::plugins_commands plugins_commands = rtctl::add_plugins_command(app, plugins);

    app.footer(
        "Exit status: 0 success, 1 the script failed or the runtime could not start, "
        "2 bad input (usage, syntax or configuration).");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int status = app.exit(e);
        return status == 0 ? rtctl::exit_ok : rtctl::exit_bad_input;
    }
    if (*run_command) return rtctl::run_command(run);
    if (*check_command) return rtctl::check_command(check_script);
    if (*conformance_command) return rtctl::conformance_command(conformance);
    if (*config_commands.check) return rtctl::config_check_command(config);
    if (*config_commands.show) return rtctl::config_show_command(config);
    if (*config_commands.print_default) return rtctl::config_default_command();
    if (*plugins_commands.list) return rtctl::plugins_list_command(plugins);
    if (*plugins_commands.info) return rtctl::plugins_info_command(plugins);
    return rtctl::exit_bad_input;
}
