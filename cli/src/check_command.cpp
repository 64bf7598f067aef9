#include "check_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "exit_codes.hpp"
#include "rtkit/script/name_check.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "script_file.hpp"

namespace rtctl {

CLI::App* add_check_command(CLI::App& app, std::filesystem::path& script) {
    CLI::App* command = app.add_subcommand(
        "check",
        "parse a script and check it without running it: syntax, break and continue inside "
        "loops, calls to declared functions, variables used where none is declared and names "
        "declared twice in a block (exit 0 when valid, 2 with the errors)");
    command->add_option("script", script, "the script to check (.rts; '-' reads standard input)")
        ->required();
    command->footer("Example:\n  rtctl check examples/scripts/hello.rts");
    return command;
}

int check_command(const std::filesystem::path& script) {
    auto source = read_script(script);
    if (!source) return exit_bad_input;
    try {
        const auto program = rtkit::script::parse(source);
        const std::vector<rtkit::script::script_error> errors = rtkit::script::check_names(program);
        for (const rtkit::script::script_error& e : errors)
            std::cerr << rtkit::script::format_diagnostic(e);
        if (!errors.empty()) return exit_bad_input;
        std::cout << source->name << ": ok (" << program.body.statements.size()
                  << " top-level statements, " << program.functions.size() << " functions)\n";
        return exit_ok;
    } catch (const rtkit::script::script_error& e) {
        std::cerr << rtkit::script::format_diagnostic(e);
        return exit_bad_input;
    }
}

}  // namespace rtctl
