#include "inspect_command.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "exit_codes.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "script_file.hpp"
#include "script_outline.hpp"
#include "trace_reader.hpp"
#include "trace_summary.hpp"
#include "trace_timeline.hpp"

namespace rtctl {
namespace {

/// A trace starts with '{' (a script never does: a block's brace follows a
/// statement).
bool looks_like_json(std::istream& in) {
    char c = 0;
    while (in.get(c))
        if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
    return false;
}

int inspect_script(const inspect_options& options) {
    if (options.svg) {
        std::cerr << "rtctl: error: --svg draws a trace's timeline, and '" << options.file.string()
                  << "' is a script: run it with rtctl run --trace FILE, then inspect FILE\n";
        return exit_bad_input;
    }
    const auto source = read_script(options.file);
    if (!source) return exit_bad_input;
    try {
        const rtkit::script::program program = rtkit::script::parse(source);
        std::cout << source->name << '\n' << script_outline(program);
        return exit_ok;
    } catch (const rtkit::script::script_error& e) {
        std::cerr << rtkit::script::format_diagnostic(e);
        return exit_bad_input;
    }
}

int inspect_trace(const inspect_options& options, std::istream& in) {
    const std::string name = options.file.string();
    trace_summary trace;
    try {
        read_trace_events(in, [&](const nlohmann::json& event, std::size_t) { trace.add(event); });
    } catch (const trace_error& e) {
        std::cerr << "rtctl: error: " << name << ": " << e.what() << '\n';
        return exit_bad_input;
    } catch (const nlohmann::json::exception& e) {  // a value the checks let through
        std::cerr << "rtctl: error: " << name << ": not a trace rtctl can read: " << e.what()
                  << '\n';
        return exit_bad_input;
    }
    if (in.bad()) {
        std::cerr << "rtctl: error: " << name << ": a read failed: " << std::strerror(errno)
                  << '\n';
        return exit_bad_input;
    }
    std::cout << name << ": " << trace.report({.frame_bytes = options.frame_limit});
    if (options.svg) {
        std::ofstream out(*options.svg, std::ios::binary | std::ios::trunc);
        out << trace_timeline_svg(trace);
        out.close();
        if (!out) {
            std::cerr << "rtctl: error: cannot write the timeline to '" << options.svg->string()
                      << "': " << std::strerror(errno) << '\n';
            return exit_failed;
        }
    }
    return exit_ok;
}

}  // namespace

int inspect_command(const inspect_options& options) {
    if (options.file == "-") return inspect_script(options);
    std::error_code error;
    if (std::filesystem::is_directory(options.file, error)) {
        std::cerr << "rtctl: error: cannot read '" << options.file.string()
                  << "': it is a directory; give a script or a trace file\n";
        return exit_bad_input;
    }
    std::ifstream in(options.file, std::ios::binary);
    if (!in) {
        std::cerr << "rtctl: error: cannot read '" << options.file.string()
                  << "': " << std::strerror(errno) << '\n';
        return exit_bad_input;
    }
    if (!looks_like_json(in)) return inspect_script(options);
    in.clear();
    in.seekg(0);
    return inspect_trace(options, in);
}

}  // namespace rtctl
