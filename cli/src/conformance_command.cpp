#include "conformance_command.hpp"

#include <charconv>
#include <iostream>

#include "exit_codes.hpp"
#include "rtkit/conformance/conformance.hpp"

namespace rtctl {
namespace {

/// "true"/"false" as bool, an integer as int, anything else as a string: the
/// loader then checks it against the type the plugin declares.
rtkit::option_value parse_option_value(const std::string& text) {
    if (text == "true") return true;
    if (text == "false") return false;
    std::int64_t number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec == std::errc{} && end == text.data() + text.size()) return number;
    return text;
}

/// Every suite's cases, one per line: name, then what it checks.
int list_cases() {
    for (const char* kind : {"reactor", "timer", "lanes"}) {
        std::cout << kind << " suite:\n";
        for (const rtkit::conformance::case_info& c : rtkit::conformance::cases_of(kind))
            std::cout << "  " << c.name << "\n      " << c.checks << "\n";
    }
    return exit_ok;
}

}  // namespace

int conformance_command(const conformance_options& options) {
    if (options.list) return list_cases();
    if (options.plugin_file.empty()) {
        std::cerr << "rtctl conformance: give a plugin file (.so), or --list to see the cases\n";
        return exit_bad_input;
    }
    rtkit::option_table table;
    for (const std::string& assignment : options.options) {
        const auto eq = assignment.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::cerr << "rtctl conformance: option '" << assignment
                      << "' must be written KEY=VALUE, e.g. --option events_per_poll=1\n";
            return exit_bad_input;
        }
        table[assignment.substr(0, eq)] = parse_option_value(assignment.substr(eq + 1));
    }
    const rtkit::conformance::report r =
        rtkit::conformance::run_conformance(options.plugin_file, table);
    if (!r.load_error.empty()) {
        // Name the file when the loader's message does not.
        const std::string file = "'" + options.plugin_file.string() + "'";
        std::cerr << "rtctl conformance: error: "
                  << (r.load_error.find(file) == std::string::npos ? file + ": " : "")
                  << r.load_error << '\n';
        return exit_bad_input;
    }
    std::cout << rtkit::conformance::format_report(r);
    return r.passed() ? exit_ok : exit_failed;
}

}  // namespace rtctl
