// rtctl: runs async scripts on an rtkit runtime built from TOML.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>
#include <vector>

#include "command_options.hpp"
#include "completion_command.hpp"
#include "exit_codes.hpp"
#include "rtkit/config/closest_match.hpp"

namespace {

/// "rtctl", "rtctl plugins", ... for the command `app` is.
std::string command_path(const CLI::App& app) {
    const CLI::App* parent = app.get_parent();
    return parent ? command_path(*parent) + " " + app.get_name() : app.get_name();
}

/// The command the parse got deepest into.
const CLI::App& deepest_command(const CLI::App& app) {
    const CLI::App* level = &app;
    while (true) {
        const auto chosen = level->get_subcommands();
        if (chosen.empty()) return *level;
        level = chosen.front();
    }
}

/// When the parse stopped because a command was missing or unknown, the
/// message that says so and lists the commands that exist; else "".
std::string missing_command(const CLI::App& app) {
    const CLI::App* level = &deepest_command(app);
    const auto known = level->get_subcommands([](const CLI::App*) { return true; });
    if (known.empty()) return "";
    std::string list;
    for (const CLI::App* sub : known)
        list += (list.empty() ? "" : ", ") + sub->get_name();
    const std::string path = command_path(*level);
    const std::string hint = " (see " + path + " --help)\n";
    // The first word that no command took, wherever the parse left it.
    std::string unknown;
    for (const CLI::App* at = level; at && unknown.empty(); at = at->get_parent())
        for (const std::string& word : at->remaining())
            if (!word.empty() && word.front() != '-') {
                unknown = word;
                break;
            }
    if (unknown.empty()) {
        if (level == &app)
            return "rtctl: error: a command is needed; the commands are: " + list + hint;
        return "rtctl: error: '" + path + "' needs a command; its commands are: " + list + hint;
    }
    if (level == &app)
        return "rtctl: error: '" + unknown + "' is not a command; the commands are: " + list + hint;
    return "rtctl: error: '" + unknown + "' is not a command of '" + path +
           "'; its commands are: " + list + hint;
}

/// When the parse stopped at an option that the command does not have, the
/// message that names it and the closest option it does have; else "".
std::string unknown_option(const CLI::App& app) {
    // The command whose arguments held it: its options are the candidates.
    const CLI::App* level = &deepest_command(app);
    std::string unknown;
    for (; level; level = level->get_parent()) {
        for (const std::string& word : level->remaining(false))
            if (word.size() > 1 && word.front() == '-') {
                unknown = word.substr(0, word.find('='));
                break;
            }
        if (!unknown.empty()) break;
    }
    if (unknown.empty()) return "";
    std::vector<std::string> names;
    for (const CLI::Option* option : level->get_options()) {
        for (const std::string& name : option->get_lnames())
            names.push_back("--" + name);
        for (const std::string& name : option->get_snames())
            names.push_back("-" + name);
    }
    const std::vector<std::string_view> candidates(names.begin(), names.end());
    const std::string path = command_path(*level);
    return "rtctl: error: '" + path + "' has no option '" + unknown + "'" +
           rtkit::config::did_you_mean(unknown, candidates) + " (see " + path + " --help)\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"rtctl: run async scripts on an rtkit runtime built from TOML", "rtctl"};
    app.set_version_flag("--version", std::string("rtctl ") + RTKIT_VERSION);
    app.require_subcommand(1);

    rtctl::run_options run;
    CLI::App* run_command = rtctl::add_run_command(app, run);
    std::filesystem::path check_script;
    CLI::App* check_command = rtctl::add_check_command(app, check_script);
    rtctl::inspect_options inspect;
    CLI::App* inspect_command = rtctl::add_inspect_command(app, inspect);
    rtctl::config_options config;
    const rtctl::config_commands config_commands = rtctl::add_config_command(app, config);
    rtctl::plugins_options plugins;
    const rtctl::plugins_commands plugins_commands = rtctl::add_plugins_command(app, plugins);
    rtctl::conformance_options conformance;
    CLI::App* conformance_command = rtctl::add_conformance_command(app, conformance);
    std::string shell;
    CLI::App* completion_command = rtctl::add_completion_command(app, shell);

    app.footer(
        "Each command's --help says more, with an example; cli/README.md describes them all and "
        "the script language.\n"
        "Exit status: 0 success, 1 the script failed or the runtime could not start, "
        "2 bad input (usage, syntax or configuration).");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // An unknown option first: whatever else went wrong may follow from it.
        if (const std::string message = unknown_option(app);
            !message.empty() && !dynamic_cast<const CLI::CallForHelp*>(&e) &&
            !dynamic_cast<const CLI::CallForAllHelp*>(&e) &&
            !dynamic_cast<const CLI::CallForVersion*>(&e)) {
            std::cerr << message;
            return rtctl::exit_bad_input;
        }
        if (dynamic_cast<const CLI::RequiredError*>(&e)) {
            if (const std::string message = missing_command(app); !message.empty()) {
                std::cerr << message;
                return rtctl::exit_bad_input;
            }
        }
        const int status = app.exit(e);
        return status == 0 ? rtctl::exit_ok : rtctl::exit_bad_input;
    }
    if (*run_command) return rtctl::run_command(run);
    if (*check_command) return rtctl::check_command(check_script);
    if (*inspect_command) return rtctl::inspect_command(inspect);
    if (*conformance_command) return rtctl::conformance_command(conformance);
    if (*config_commands.check) return rtctl::config_check_command(config);
    if (*config_commands.show) return rtctl::config_show_command(config);
    if (*config_commands.print_default) return rtctl::config_default_command();
    if (*plugins_commands.list) return rtctl::plugins_list_command(plugins);
    if (*plugins_commands.info) return rtctl::plugins_info_command(plugins);
    if (*completion_command) return rtctl::completion_command(app, shell);
    return rtctl::exit_bad_input;
}
