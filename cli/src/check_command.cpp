#include "check_command.hpp"

#include <iostream>

#include "exit_codes.hpp"
#include "rtkit/script/name_check.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "script_file.hpp"

namespace rtctl {

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
