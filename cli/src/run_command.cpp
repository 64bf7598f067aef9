#include "run_command.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>

#include <rtkit/rtkit.hpp>

#include "exit_codes.hpp"
#include "exit_watchdog.hpp"
#include "lab_mode.hpp"
#include "progress_line.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/interp/script_failed.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "run_stats.hpp"
#include "script_file.hpp"

namespace rtctl {
namespace {

/// The configuration: defaults, then the file, RTKIT_* variables, then each --set. Nullopt after
/// printing the errors.
std::optional<rtkit::runtime_config> configure(const run_options& options) {
    std::vector<std::string> overrides = options.overrides;
    if (options.lab) {
        const std::vector<std::string> lab = lab_overrides(options.seed);
        overrides.insert(overrides.end(), lab.begin(), lab.end());
    }
    try {
        rtkit::runtime_config config =
            rtkit::config::load({options.config_file, true, overrides}).config;
        if (options.trace_file) {
            config.trace.enabled = true;
            config.trace.file = *options.trace_file;
        }
        return config;
    } catch (const rtkit::config::config_error& e) {
        std::cerr << e.what() << '\n';
        return std::nullopt;
    }
}

/// The --progress line and the script's streams that erase it, taken down
/// together (the streams let go first), at the end of the run or when an
/// exception leaves it; before the runtime whose counters the line shows.
struct progress_display {
    output_beside_progress& out;
    output_beside_progress& err;
    std::optional<progress_line> line;

    void start(const rtkit::runtime& runtime, std::chrono::steady_clock::time_point started) {
        line.emplace(runtime, started);
        out.attach(&*line);
        err.attach(&*line);
    }
    void stop() {
        out.attach(nullptr);
        err.attach(nullptr);
        line.reset();
    }
    ~progress_display() { stop(); }
};

}  // namespace

int run_command(const run_options& options) {
    if (options.script == "-" && options.config_file == "-") {
        std::cerr << "rtctl: error: standard input ('-') can hold the script or the "
                     "configuration, not both\n";
        return exit_bad_input;
    }
    if (options.lab) std::cerr << "lab seed " << options.seed << '\n';
    auto source = read_script(options.script);
    if (!source) return exit_bad_input;
    std::optional<rtkit::script::program> program;
    try {
        program = rtkit::script::parse(source);
    } catch (const rtkit::script::script_error& e) {
        std::cerr << rtkit::script::format_diagnostic(e);
        return exit_bad_input;
    }
    if (options.lab) {
        if (const auto refused = first_lab_refusal(*source)) {
            std::cerr << rtkit::script::format_diagnostic(*refused);
            return exit_bad_input;
        }
    }
    const auto config = configure(options);
    if (!config) return exit_bad_input;

    // rtctl ends at most this long after its script was stopped or its time
    // limit passed (exit_watchdog.hpp).
    constexpr auto grace = std::chrono::milliseconds(250);
    // What the runtime's workers are doing, for the watchdog: set once the
    // runtime is built, and kept by the watchdog while the runtime goes.
    std::atomic<std::shared_ptr<const rtkit::runtime_activity>> activity;
    std::optional<exit_watchdog> watchdog;
    rtkit::interp::interpreter_options limits{
        .max_steps = options.max_steps,
        .max_tasks = options.max_tasks,
        .max_time = rtkit::duration(options.max_time_ns),
        .on_stop = [&watchdog] { watchdog->script_stopped(); }};
    // With --progress, the script's output and errors erase the line before
    // they go to the terminal.
    output_beside_progress out_buffer(std::cout), err_buffer(std::cerr);
    std::ostream out_beside_progress(&out_buffer), err_beside_progress(&err_buffer);
    std::ostream& script_out = options.progress ? out_beside_progress : std::cout;
    std::ostream& script_err = options.progress ? err_beside_progress : std::cerr;
    // Declared before the runtime so that it outlives every task it runs.
    rtkit::interp::interpreter interpreter(*program, script_out, script_err, std::move(limits));
    std::optional<exit_watchdog::clock::duration> time_limit;
    if (options.max_time_ns > 0) time_limit = std::chrono::nanoseconds(options.max_time_ns);
    watchdog.emplace(time_limit, grace, [&interpreter, &activity] {
        // A line for each worker that is not running tasks: where a plugin
        // holds one up.
        std::string notes;
        if (const auto board = activity.load()) {
            std::istringstream lines(board->describe());
            for (std::string line; std::getline(lines, line);)
                notes += "rtctl: note: " + line + '\n';
        }
        return notes + "rtctl: note: " + std::to_string(interpreter.live_tasks()) +
               " tasks of the script are alive\n";
    });
    struct disarm_first {  // before the interpreter it describes goes
        std::optional<exit_watchdog>& watchdog;
        ~disarm_first() { watchdog.reset(); }
    } disarm{watchdog};
    try {
        const auto started = std::chrono::steady_clock::now();
        rtkit::runtime runtime(*config);
        activity.store(runtime.activity());
        progress_display progress{out_buffer, err_buffer, std::nullopt};
        if (options.progress && ::isatty(STDERR_FILENO)) progress.start(runtime, started);
        bool failed = false;
        try {
            runtime.block_on(interpreter.run(runtime));
        } catch (const rtkit::interp::script_failed&) {
            failed = true;  // each error was reported where it happened
        }
        watchdog->run_ended();
        progress.stop();  // erases the line before anything else is printed
        if (!options.stats.empty()) {
            const auto elapsed = std::chrono::steady_clock::now() - started;
            std::cerr << (options.stats == "json" ? stats_json(runtime.metrics(), elapsed)
                                                  : stats_table(runtime.metrics(), elapsed));
        }
        if (failed) return exit_failed;
    } catch (const std::exception& e) {
        std::cerr << "rtctl: error: " << e.what() << '\n';
        return exit_failed;
    }
    return interpreter.errors_reported() == 0 ? exit_ok : exit_failed;
}

}  // namespace rtctl
