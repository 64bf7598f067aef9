// rtctl as a tool: its command line, help, version, completion and the
// errors of commands it does not know. The real binary.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rtctl_process.hpp"

TEST_CASE("an unknown command is named as such - with the list of commands") {
    const auto r = run_rtctl({"frobnicate"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err ==
          "rtctl: error: 'frobnicate' is not a command; the commands are: run, check, inspect, "
          "config, plugins, conformance, completion (see rtctl --help)\n");

    const auto nested = run_rtctl({"plugins", "frob"});
    CHECK(nested.status == 2);
    CHECK(nested.err ==
          "rtctl: error: 'frob' is not a command of 'rtctl plugins'; its commands are: list, info "
          "(see rtctl plugins --help)\n");

    const auto none = run_rtctl({});
    CHECK(none.status == 2);
    CHECK(none.err ==
          "rtctl: error: a command is needed; the commands are: run, check, inspect, config, "
          "plugins, conformance, completion (see rtctl --help)\n");
}

TEST_CASE("an unknown option is named - with the closest option of its command") {
    const auto top = run_rtctl({"--hepl"});
    CHECK(top.status == 2);
    CHECK(top.err ==
          "rtctl: error: 'rtctl' has no option '--hepl'; did you mean '--help'? (see rtctl "
          "--help)\n");
    // Before the command's required argument, and after it.
    for (const auto& args : {std::vector<std::string>{"run", "--max-step", "3"},
                             std::vector<std::string>{"run", "x.rts", "--max-step=3"}}) {
        const auto r = run_rtctl(args);
        CHECK(r.status == 2);
        CHECK(r.err ==
              "rtctl: error: 'rtctl run' has no option '--max-step'; did you mean '--max-steps'? "
              "(see rtctl run --help)\n");
    }
    const auto far = run_rtctl({"config", "check", "--frobnicate"});
    CHECK(far.err ==
          "rtctl: error: 'rtctl config check' has no option '--frobnicate' (see rtctl "
          "config check --help)\n");
}

TEST_CASE("conformance of a file that is not a plugin - the error on stderr names the file") {
    const auto r = run_rtctl({"conformance", "/etc/passwd"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err.rfind("rtctl conformance: error: ", 0) == 0);
    CHECK(r.err.find("'/etc/passwd'") != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("--version names the program and its version") {
    const auto r = run_rtctl({"--version"});
    CHECK(r.status == 0);
    CHECK(r.out == std::string("rtctl ") + RTKIT_VERSION + "\n");
}

TEST_CASE("every command's --help says what it does - with an example") {
    const std::vector<std::vector<std::string>> commands{{"run"},
                                                         {"check"},
                                                         {"config"},
                                                         {"config", "check"},
                                                         {"config", "show"},
                                                         {"config", "default"},
                                                         {"plugins"},
                                                         {"plugins", "list"},
                                                         {"plugins", "info"},
                                                         {"conformance"},
                                                         {"completion"}};
    for (std::vector<std::string> command : commands) {
        CAPTURE(command.back());
        command.push_back("--help");
        const auto r = run_rtctl(command);
        CHECK(r.status == 0);
        CHECK(r.out.find("Usage: rtctl " + command.front()) != std::string::npos);
        CHECK(r.out.find("Example") != std::string::npos);
    }
    const auto top = run_rtctl({"--help"});
    CHECK(top.out.find("Exit status: 0 success") != std::string::npos);
}

TEST_CASE("--config comes before or after the command's own words") {
    const std::string config = "examples/configs/io_uring.toml";
    const auto after = run_rtctl({"plugins", "list", "--config", config});
    CHECK(after.status == 0);
    CHECK(after.out.find("search path (in order):") != std::string::npos);
    CHECK(run_rtctl({"plugins", "--config", config, "list"}).out == after.out);
    CHECK(run_rtctl({"plugins", "info", "epoll", "-c", config}).status == 0);
    const auto run_after = run_rtctl({"run", "examples/scripts/hello.rts", "--config", config});
    const auto run_before = run_rtctl({"run", "--config", config, "examples/scripts/hello.rts"});
    CHECK(run_after.status == 0);
    CHECK(run_after.out == run_before.out);
}

namespace {

/// What bash completes for `words` (the last one being completed) with the
/// script of `rtctl completion bash` loaded.
std::string complete(const std::string& completion_script, const std::string& words) {
    char path[] = "/tmp/rtctl-completion-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, completion_script.data(), completion_script.size()) ==
            static_cast<ssize_t>(completion_script.size()));
    close(fd);
    // In the source directory, where the file names below are.
    const std::string command = "cd " RTKIT_SOURCE_DIR " && bash -c 'source " + std::string(path) +
                                "; COMP_WORDS=(" + words +
                                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _rtctl; echo "
                                "\"${COMPREPLY[*]}\"'";
    std::string output;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buffer[4096];
        while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe))
            output.append(buffer, n);
        pclose(pipe);
    }
    unlink(path);
    return output;
}

}  // namespace

TEST_CASE("completion bash completes commands - options - and files") {
    const auto r = run_rtctl({"completion", "bash"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("complete -o filenames -F _rtctl rtctl") != std::string::npos);
    CHECK(complete(r.out, "rtctl \"\"") ==
          "run check inspect config plugins conformance completion\n");
    CHECK(complete(r.out, "rtctl pl") == "plugins\n");
    CHECK(complete(r.out, "rtctl plugins \"\"") == "list info\n");
    CHECK(complete(r.out, "rtctl run --max-s") == "--max-steps\n");
    CHECK(complete(r.out, "rtctl run --max-t") == "--max-tasks --max-time\n");
    CHECK(complete(r.out, "rtctl plugins list --c") == "--config\n");
    CHECK(complete(r.out, "rtctl config check --s") == "--set\n");
    CHECK(complete(r.out, "rtctl completion \"\"") == "bash\n");
    CHECK(complete(r.out, "rtctl --ver") == "--version\n");
    // Files where the command takes a file (run from the source directory).
    CHECK(complete(r.out, "rtctl run examples/scripts/hel") == "examples/scripts/hello.rts\n");
    CHECK(complete(r.out, "rtctl run x.rts --config examples/configs/io_") ==
          "examples/configs/io_uring.toml\n");
    CHECK(run_rtctl({"completion", "zsh"}).status == 2);
}

TEST_CASE("run --max-time takes a duration - stops a script that waits for ever") {
    const auto stopped =
        run_rtctl({"run", "tests/cli/scripts/waits_for_ever.rts", "--max-time", "0.1s"});
    CHECK(stopped.status == 1);
    CHECK(stopped.err.rfind("error: the script ran longer than its time limit of 100ms", 0) == 0);
    CHECK(stopped.err.find("tests/cli/scripts/waits_for_ever.rts:2:14: note: the top level waits "
                           "here") != std::string::npos);

    const auto bad = run_rtctl({"run", "examples/scripts/hello.rts", "--max-time", "5"});
    CHECK(bad.status == 2);
    CHECK(bad.err.find("'5' is not a duration: write one such as 30s, 1.5s or 250ms") !=
          std::string::npos);
    // 0 is no limit, in any unit.
    for (const char* none : {"0", "0s", "0ms"}) {
        CAPTURE(none);
        const auto r = run_rtctl({"run", "examples/scripts/hello.rts", "--max-time", none});
        CHECK(r.status == 0);
        CHECK(r.err == "");
    }
}

TEST_CASE("run --max-steps and --max-tasks take a count - and refuse anything else") {
    for (const char* option : {"--max-steps", "--max-tasks"}) {
        CAPTURE(option);
        for (const char* bad : {"-1", "+5", " 5", "0x10", "1e3", "1.5", "ten", ""}) {
            CAPTURE(bad);
            const auto r = run_rtctl({"run", "examples/scripts/hello.rts", option, bad});
            CHECK(r.status == 2);
            CHECK(r.err.find(std::string(option) + ": '" + bad +
                             "' is not a count: write a whole number such as 1000 (0 for no "
                             "limit)") != std::string::npos);
        }
        const auto huge =
            run_rtctl({"run", "examples/scripts/hello.rts", option, "18446744073709551616"});
        CHECK(huge.status == 2);
        CHECK(huge.err.find("'18446744073709551616' is too large: the largest count is "
                            "18446744073709551615") != std::string::npos);
        for (const char* good : {"0", "18446744073709551615"})
            CHECK(run_rtctl({"run", "examples/scripts/hello.rts", option, good}).status == 0);
    }
}

TEST_CASE("run --max-time ends rtctl while tasks keep spawning tasks") {
    // The tasks alive at the limit take far longer than the limit to unwind
    // (the kernel cancels nested regions in time that grows faster than their
    // number): rtctl leaves them to the system once the error is printed.
    rtctl_limits limits;
    limits.timeout_seconds = 60;
    const auto r = run_rtctl(
        {"run", "tests/cli/scripts/spawns_for_ever.rts", "--max-time", "0.3s", "--max-tasks", "0"},
        limits);
    INFO(r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("error: the script ran longer than its time limit of 300ms") !=
          std::string::npos);
}

namespace {

/// The notes the watchdog prints for the runtime's workers (rtctl: note:
/// worker ...), one per line.
std::vector<std::string> worker_notes(const std::string& err) {
    std::vector<std::string> notes;
    for (std::size_t at = err.find("rtctl: note: worker "); at != std::string::npos;
         at = err.find("rtctl: note: worker ", at + 1))
        notes.push_back(err.substr(at, err.find('\n', at) - at));
    return notes;
}

/// Whether one of `notes` says that a worker has been inside the deaf
/// reactor's poll for some time.
bool names_worker_in_deaf_poll(const std::vector<std::string>& notes) {
    for (const std::string& note : notes) {
        CAPTURE(note);
        const std::size_t inside =
            note.find(" has been inside the reactor plugin \"deaf\" (poll) for ");
        if (inside == std::string::npos) continue;
        // "rtctl: note: worker N has been ...": N is the worker's index.
        const std::string worker = note.substr(20, inside - 20);
        if (worker == "0" || worker == "1") return true;
    }
    return false;
}

}  // namespace

TEST_CASE("run --max-time ends rtctl whatever a stuck reactor does - on multi_thread") {
    // The reactor's wake() does nothing: a worker blocks in its poll() while
    // another waits for the reactor, most runs. rtctl exits all the same,
    // through the time limit's own report when the runtime still ran it, else
    // through the watchdog's, which names the worker held up in the reactor.
    rtctl_limits limits;
    limits.timeout_seconds = 60;
    const std::string search_path = "plugins.search_path=[\"" RTKIT_TEST_CLI_PLUGIN_DIR "\"]";
    for (const std::string script :
         {"tests/cli/scripts/waits_for_ever.rts", "tests/cli/scripts/spawns_itself.rts"}) {
        CAPTURE(script);
        const auto r = run_rtctl({"run", script, "--max-time", "0.3s", "--set", search_path,
                                  "--set", "reactor.plugin=deaf", "--set",
                                  "runtime.flavor=multi_thread", "--set", "runtime.workers=2"},
                                 limits);
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(r.err.find("error: the script ran longer than its time limit of 300ms") !=
              std::string::npos);
        // Only the reactor holds this script up (the other may take long to
        // unwind its many tasks).
        if (script == "tests/cli/scripts/waits_for_ever.rts" &&
            r.err.find("rtctl exits without waiting for it") != std::string::npos)
            CHECK(names_worker_in_deaf_poll(worker_notes(r.err)));
    }
}

TEST_CASE("run --max-time names the worker stuck in a reactor plugin's poll - on either flavor") {
    // The deaf reactor's polls also ignore their timeouts: the worker that
    // waits there for a client that never comes is stuck for good, and its
    // timers with it. The watchdog ends rtctl and names that worker, the
    // plugin and the call.
    rtctl_limits limits;
    limits.timeout_seconds = 60;
    const std::string search_path = "plugins.search_path=[\"" RTKIT_TEST_CLI_PLUGIN_DIR "\"]";
    for (const std::string workers : {"multi_thread:2", "current_thread:1"}) {
        CAPTURE(workers);
        const std::size_t colon = workers.find(':');
        const auto r = run_rtctl({"run", "tests/cli/scripts/waits_for_ever.rts", "--max-time",
                                  "0.3s", "--set", search_path, "--set", "reactor.plugin=deaf",
                                  "--set", "reactor.deaf.test_poll_ignores_timeout=true", "--set",
                                  "runtime.flavor=" + workers.substr(0, colon), "--set",
                                  "runtime.workers=" + workers.substr(colon + 1)},
                                 limits);
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(r.err.find("error: the script ran longer than its time limit of 300ms") !=
              std::string::npos);
        CHECK(r.err.find("rtctl exits without waiting for it\n") != std::string::npos);
        const std::vector<std::string> notes = worker_notes(r.err);
        CHECK(names_worker_in_deaf_poll(notes));
        CHECK(notes.size() <= std::stoul(workers.substr(colon + 1)));
        CHECK(r.err.find(" tasks of the script are alive\n") != std::string::npos);
    }
}

TEST_CASE("run --max-tasks stops a spawn that recurses for ever") {
    const auto r = run_rtctl({"run", "tests/cli/scripts/spawns_itself.rts", "--max-tasks", "50"});
    CHECK(r.status == 1);
    CHECK(r.err.rfind("tests/cli/scripts/spawns_itself.rts:3:5: error: the script has 50 tasks "
                      "alive, its limit",
                      0) == 0);
}

TEST_CASE("a race whose blocks both fail in the same turn - each failure reported once") {
    // The losing block fails as it loses: the script reports it, and the
    // runtime must not report it again as a failure nobody took.
    char path[] = "/tmp/rtctl_race_XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    const std::string script = "race {\n    fail \"first\"\n} or {\n    sleep 10.messages\n}\n";
    REQUIRE(::write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size()));
    ::close(fd);
    const rtctl_result r = run_rtctl({"run", path});
    ::unlink(path);
    CHECK(r.status == 1);
    CHECK(r.err.find("error: first") != std::string::npos);
    CHECK(r.err.find("an integer has no field 'messages'") != std::string::npos);
    CHECK(r.err.find("nobody took its outcome") == std::string::npos);
}
