#pragma once
// Runs a script in-process through the interpreter, on a real runtime with
// the built-in plugins, and captures what it printed.
#include <string>
#include <vector>

#include <rtkit/runtime_config.hpp>

#include "rtkit/interp/interpreter.hpp"

struct script_result {
    bool failed = false;  ///< run() threw script_failed
    std::string out;
    std::string err;
};

/// Runs `text` on a runtime made from `config`, on the flavor the environment
/// variable RTKIT_TEST_FLAVOR names if it is set (multi_thread: two workers).
script_result run_script(std::string text, rtkit::interp::interpreter_options options = {},
                         const rtkit::runtime_config& config = {});

/// The default configuration with `reactor` as the only reactor preference.
inline rtkit::runtime_config with_reactor(const std::string& reactor) {
    rtkit::runtime_config config;
    config.reactor.preference = {reactor};
    return config;
}

/// The first line of the error output, without the file name.
std::string first_error(const script_result& r);

/// The lines of `text`, sorted: for output whose order the schedule decides.
std::vector<std::string> sorted_lines(const std::string& text);
