#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "script_file.hpp"

namespace rtctl {

int check_command(const std::filesystem::path& script) {
    auto source = read_script(script);
    if (!source) return exit_bad_input;
    try {
        const auto program = rtkit::script::parse(source);
        std::cout << source->name << ": ok (" << program.body.statements.size()
                  << " top-level statements)\n";
        return exit_ok;
    } catch (const rtkit::script::script_error& e) {
        std::cerr << rtkit::script::format_diagnostic(e);
        return exit_bad_input;
    }
}

}  // namespace rtctl
