#include "script_runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <rtkit/runtime.hpp>
#include <sstream>

#include "rtkit/interp/script_failed.hpp"
#include "rtkit/script/parser.hpp"

script_result run_script(std::string text, rtkit::interp::interpreter_options options,
                         const rtkit::runtime_config& config) {
    const auto program = rtkit::script::parse("i.rts", std::move(text));
    std::ostringstream out, err;
    rtkit::interp::interpreter interpreter(program, out, err, options);
    script_result result;
    {
        rtkit::runtime runtime(config);
        try {
            runtime.block_on(interpreter.run());
        } catch (const rtkit::interp::script_failed&) {
            result.failed = true;
        }
        CHECK(runtime.is_quiescent());  // every task of the script ended
    }
    CHECK(result.failed == (interpreter.errors_reported() > 0));
    result.out = out.str();
    result.err = err.str();
    return result;
}

std::string first_error(const script_result& r) {
    const auto line = r.err.substr(0, r.err.find('\n'));
    return line.substr(line.find(':') + 1);
}

std::vector<std::string> sorted_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
}
