#include <iostream>

#include <rtkit/rtkit.hpp>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/interp/interpreter.hpp"
#include "rtkit/interp/task_failed.hpp"
#include "rtkit/script/parser.hpp"
#include "script_file.hpp"

namespace rtctl {
namespace {

/// The configuration: defaults, then the file, RTKIT_* variables, then each --set. Nullopt after
/// printing the errors.
std::optional<rtkit::runtime_config> configure(const run_options& options) {
    try {
        return rtkit::config::load({options.config_file, true, options.overrides}).config;
    } catch (const rtkit::config::config_error& e) {
        std::cerr << e.what() << '\n';
        return std::nullopt;
    }
}

}  // namespace

int run_command(const run_options& options) {
    if (options.script == "-" && options.config_file == "-") {
        std::cerr << "rtctl: error: standard input ('-') can hold the script or the "
                     "configuration, not both\n";
        return exit_bad_input;
    }
    auto source = read_script(options.script);
    if (!source) return exit_bad_input;
    std::optional<rtkit::script::program> program;
    try {
        program = rtkit::script::parse(source);
    } catch (const rtkit::script::script_error& e) {
        std::cerr << rtkit::script::format_diagnostic(e);
        return exit_bad_input;
    }
    const auto config = configure(options);
    if (!config) return exit_bad_input;

    // Declared before the runtime so that it outlives every task it runs.
    rtkit::interp::interpreter interpreter(*program, std::cout, std::cerr);
    try {
        rtkit::runtime runtime(*config);
        runtime.block_on(interpreter.run());
    } catch (const rtkit::interp::task_failed&) {
        return exit_failed;  // each error was reported where it happened
    } catch (const rtkit::plugin_error& e) {
        std::cerr << "rtctl: error: " << e.what() << '\n';
        return exit_failed;
    } catch (const std::exception& e) {
        std::cerr << "rtctl: error: " << e.what() << '\n';
        return exit_failed;
    }
    return interpreter.errors_reported() == 0 ? exit_ok : exit_failed;
}

}  // namespace rtctl
