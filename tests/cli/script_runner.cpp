#include "script_runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <rtkit/diagnostics.hpp>
#include <rtkit/runtime.hpp>
#include <sstream>
#include <thread>

#include "rtkit/interp/script_failed.hpp"
#include "rtkit/script/parser.hpp"

namespace {

/// The test's own configuration, on the flavor RTKIT_TEST_FLAVOR names if it
/// is set (CTest runs this suite once more with it set to multi_thread).
rtkit::runtime_config on_test_flavor(rtkit::runtime_config config) {
    if (const char* flavor = std::getenv("RTKIT_TEST_FLAVOR")) {
        config.flavor = flavor;
        if (config.flavor == "multi_thread") config.workers = 2;
    }
    return config;
}

}  // namespace

script_result run_script(std::string text, rtkit::interp::interpreter_options options,
                         const rtkit::runtime_config& config) {
    const auto program = rtkit::script::parse("i.rts", std::move(text));
    std::ostringstream out, err;
    rtkit::interp::interpreter interpreter(program, out, err, options);
    script_result result;
    // The interpreter reports every failure itself: the runtime has nothing
    // to say (a failure nobody took, a leaked task).
    std::mutex diagnostics_lock;
    std::string diagnostics;  ///< one line each
    struct restore_hook {
        rtkit::diagnostic_hook previous;
        ~restore_hook() { rtkit::set_diagnostic_hook(std::move(previous)); }
    } restore{rtkit::set_diagnostic_hook([&](const rtkit::diagnostic& d) {
        std::lock_guard guard(diagnostics_lock);
        diagnostics += d.message + '\n';
    })};
    {
        rtkit::runtime runtime(on_test_flavor(config));
        try {
            runtime.block_on(interpreter.run(runtime));
        } catch (const rtkit::interp::script_failed&) {
            result.failed = true;
        }
        // Every task of the script ended. On several workers, the last ones
        // may still be retiring on their threads for a moment.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!runtime.is_quiescent() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        CHECK(runtime.is_quiescent());
    }
    CHECK(diagnostics == "");
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
