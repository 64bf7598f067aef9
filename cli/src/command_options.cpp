#include "command_options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rtkit/script/lexer.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtctl {
namespace {

/// Checks that `text` is a count (decimal digits that fit 64 bits), for
/// --max-steps and --max-tasks: a sign, a space or a base prefix is refused
/// rather than read as something else.
std::string check_count(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return "'" + text + "' is not a count: write a whole number such as 1000 (0 for no limit)";
    std::uint64_t value = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc())
        return "'" + text + "' is too large: the largest count is " +
               std::to_string(std::numeric_limits<std::uint64_t>::max()) + " (0 for no limit)";
    return "";
}

/// Checks that `text` is one duration as scripts write it ("30s", "1.5s",
/// "250ms"), or 0, and replaces it with its nanoseconds, for --max-time.
std::string duration_to_nanoseconds(std::string& text) {
    if (text == "0") return "";
    const rtkit::script::source_file file{"--max-time", text};
    std::vector<rtkit::script::token> tokens;
    try {
        tokens = rtkit::script::tokenize(file);
    } catch (const rtkit::script::script_error& e) {
        return e.message();
    }
    if (tokens.size() != 3 || tokens[0].kind != rtkit::script::token_kind::duration ||
        tokens[1].kind != rtkit::script::token_kind::newline)
        return "'" + text + "' is not a duration: write one such as 30s, 1.5s or 250ms";
    text = std::to_string(tokens[0].number);
    return "";
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, run_options& options) {
    CLI::App* command = app.add_subcommand(
        "run",
        "run a script on a runtime built from the configuration (cli/README.md describes "
        "the language)");
    command
        ->add_option("script", options.script, "the script to run (.rts; '-' reads standard input)")
        ->required();
    command
        ->add_option("--config,-c", options.config_file,
                     "runtime configuration (TOML); default: the built-in defaults, the values "
                     "of config/default.toml")
        ->type_name("FILE");
    // One KEY=VALUE per --set, so a script path after it is not swallowed.
    command
        ->add_option("--set", options.overrides,
                     "override one configuration key, e.g. --set reactor.plugin=epoll "
                     "(repeatable; applied after --config)")
        ->allow_extra_args(false);
    command
        ->add_option("--max-steps", options.max_steps,
                     "stop the script with an error after this many steps (statements and loop "
                     "rounds, all tasks together); 0 for no limit")
        ->type_name("COUNT")
        ->check(CLI::Validator(check_count, ""))
        ->default_val(rtkit::interp::default_max_steps);
    command
        ->add_option("--max-tasks", options.max_tasks,
                     "stop the script with an error when a spawn would make more tasks alive at "
                     "once than this; 0 for no limit")
        ->type_name("COUNT")
        ->check(CLI::Validator(check_count, ""))
        ->default_val(rtkit::interp::default_max_tasks);
    command
        ->add_option("--max-time", options.max_time_ns,
                     "stop the script with an error once it has run this long (a duration: "
                     "30s, 1.5s, 250ms), whatever its tasks wait for; default and 0: no "
                     "limit")
        ->type_name("DURATION")
        ->transform(CLI::Validator(duration_to_nanoseconds, ""));
    CLI::Option* lab =
        command->add_flag("--lab", options.lab,
                          "a replayable run: one worker, the lab lane policy picking tasks by a "
                          "seeded generator, virtual time (a sleep ends at once, in order); "
                          "scripts that open sockets or spin are refused");
    command
        ->add_option("--seed", options.seed,
                     "the lab run's seed (stderr's first line names it, to replay a run); "
                     "default 0")
        ->needs(lab);
    command
        ->add_option("--trace", options.trace_file,
                     "write trace events (spawns, polls, wakes, timers, I/O) to FILE as Chrome "
                     "trace-event JSON, which Perfetto and chrome://tracing open; with --lab the "
                     "same seed writes the same file")
        ->type_name("FILE");
    command
        ->add_flag("--stats{table}", options.stats,
                   "after the run, print the runtime's counters on stderr: a table, or with "
                   "--stats=json one JSON object on one line (kernel/README.md says what each "
                   "counter means)")
        ->check(CLI::Validator(
            [](const std::string& format) -> std::string {
                if (format == "table" || format == "json") return "";
                return "'" + format +
                       "' is not a format of --stats: write --stats for a table "
                       "or --stats=json for JSON";
            },
            ""))
        ->type_name("[=json]");
    command->add_flag("--progress", options.progress,
                      "while the script runs, keep a status line on stderr (elapsed time, tasks "
                      "alive and done, timers pending, descriptors registered) when stderr is a "
                      "terminal; nothing otherwise");
    command->footer(
        "Examples:\n"
        "  rtctl run examples/scripts/hello.rts\n"
        "  rtctl run examples/scripts/fanout.rts --stats\n"
        "  rtctl run examples/scripts/tcp_echo.rts --config examples/configs/io_uring.toml\n"
        "  rtctl run server.rts --set reactor.plugin=uring --max-steps 0\n"
        "  rtctl run examples/scripts/lab_schedules.rts --lab --seed 7\n"
        "  rtctl run examples/scripts/hello.rts --trace trace.json");
    return command;
}

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

CLI::App* add_inspect_command(CLI::App& app, inspect_options& options) {
    CLI::App* command = app.add_subcommand(
        "inspect",
        "show what a script or a trace holds: a script's tasks and blocks with their positions, "
        "or a trace's busiest tasks, wake-to-poll latency, lanes, timers, I/O and lints");
    command
        ->add_option("file", options.file,
                     "a script (.rts; '-' reads standard input), or a trace that rtctl run "
                     "--trace wrote (Chrome trace-event JSON)")
        ->required();
    command
        ->add_option("--svg", options.svg,
                     "with a trace: also draw its timeline into FILE (one row per worker, polls "
                     "as boxes coloured by task, wakes as arrows), for a browser")
        ->type_name("FILE");
    command
        ->add_option("--frame-limit", options.frame_limit,
                     "with a trace: a task whose coroutine frame is larger than this many bytes "
                     "is a lint")
        ->type_name("BYTES")
        ->default_val(options.frame_limit);
    command->footer(
        "Examples:\n"
        "  rtctl inspect examples/scripts/hello.rts\n"
        "  rtctl run examples/scripts/fanout.rts --trace fanout.json\n"
        "  rtctl inspect fanout.json --svg fanout.svg");
    return command;
}

config_commands add_config_command(CLI::App& app, config_options& options) {
    CLI::App* config = app.add_subcommand(
        "config", "check a configuration, show the effective one, or print the defaults");
    config->require_subcommand(1);
    config_commands commands;

    commands.check = config->add_subcommand(
        "check", "validate a TOML configuration (exit 0 when valid, 2 with its errors)");
    commands.check
        ->add_option("file", options.file, "the configuration (TOML; '-' reads standard input)")
        ->required()
        ->type_name("FILE");

    commands.show = config->add_subcommand(
        "show",
        "print the effective configuration with defaults filled in and where each "
        "value came from");
    commands.show->add_option("file", options.file,
                              "the configuration (TOML; '-' reads standard input); default: none");

    for (CLI::App* command : {commands.check, commands.show})
        command
            ->add_option("--set", options.overrides,
                         "override one key, e.g. --set reactor.plugin=epoll (repeatable)")
            ->allow_extra_args(false);

    commands.show->add_flag("--test-options", options.test_options,
                            "also show plugin options meant for tests only (names test_*) "
                            "left at their defaults");

    commands.print_default =
        config->add_subcommand("default", "print config/default.toml: every key with its default");
    config->footer(
        "Examples:\n  rtctl config check my.toml\n  rtctl config show my.toml --set "
        "reactor.plugin=uring\n  rtctl config default");
    commands.check->footer("Example:\n  rtctl config check examples/configs/io_uring.toml");
    commands.show->footer(
        "Example:\n  rtctl config show examples/configs/tuned.toml --set timer.wheel.tick_us=100");
    commands.print_default->footer("Example:\n  rtctl config default > my.toml");
    return commands;
}

plugins_commands add_plugins_command(CLI::App& app, plugins_options& options) {
    CLI::App* plugins =
        app.add_subcommand("plugins", "list the plugins on the search path, or describe one");
    plugins->require_subcommand(1);
    plugins
        ->add_option("--config,-c", options.config_file,
                     "a configuration whose [plugins] search_path extends the search path")
        ->type_name("FILE");
    plugins_commands commands;
    commands.list = plugins->add_subcommand(
        "list", "name, kind, version, ABI, file and description of every loadable plugin");
    commands.info = plugins->add_subcommand(
        "info", "one plugin's descriptor and options (type, default, range or values, help)");
    commands.info->add_option("name", options.name, "the plugin's name, e.g. epoll")->required();
    commands.info->add_option("--kind", options.kind, "reactor, timer or lanes")
        ->check(CLI::IsMember({"reactor", "timer", "lanes"}));
    commands.info->add_flag("--test-options", options.test_options,
                            "also list the options meant for tests only (names test_*)");
    // --config belongs to `plugins`; let it come after `list` or `info` too.
    commands.list->fallthrough();
    commands.info->fallthrough();
    plugins->footer("Examples:\n  rtctl plugins list\n  rtctl plugins info uring --config my.toml");
    commands.list->footer("Example:\n  rtctl plugins list --config examples/configs/io_uring.toml");
    commands.info->footer("Example:\n  rtctl plugins info epoll --kind reactor");
    return commands;
}

CLI::App* add_conformance_command(CLI::App& app, conformance_options& options) {
    CLI::App* command = app.add_subcommand(
        "conformance",
        "run the conformance suite of a plugin file's kind against it (exit 0 all passed, "
        "1 failures, 2 cannot load); --list says what each case checks");
    command->add_option("plugin", options.plugin_file, "the plugin file (.so)")->type_name("FILE");
    command->add_flag("--list", options.list,
                      "list every suite's cases and what each checks, and run nothing");
    command
        ->add_option("--option,-o", options.options,
                     "a plugin option KEY=VALUE for every object the suite creates (repeatable)")
        ->allow_extra_args(false);
    command->footer(
        "Example:\n"
        "  rtctl conformance build/release/lib/rtkit/plugins/rtkit_reactor_epoll.so\n"
        "  rtctl conformance my_reactor.so -o events_per_poll=1\n"
        "  rtctl conformance --list");
    return command;
}

}  // namespace rtctl
