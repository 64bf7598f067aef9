// rtctl end to end: the real binary, the real runtime, the real plugins.
#include <doctest/doctest.h>

#include "rtctl_process.hpp"

namespace {
const std::string scripts = "tests/cli/scripts/";
}

TEST_CASE("a syntax error exits 2 with file:line:column - the line and a caret - running nothing") {
    const auto r = run_rtctl({"run", scripts + "syntax_error.rts"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err == scripts +
                       "syntax_error.rts:2:15: error: expected ')' to close the '(' at 2:9, "
                       "found end of line\n"
                       "  let x = (1 + 2\n"
                       "                ^\n");
}

TEST_CASE("a runtime error inside a spawned task is reported with its position and exits 1") {
    const auto r = run_rtctl({"run", scripts + "division_by_zero.rts"});
    CHECK(r.status == 1);
    CHECK(r.out == "before\n");
    CHECK(r.err == scripts +
                       "division_by_zero.rts:5:21: error: division by zero\n"
                       "      print \"never\" 1 / zero\n"
                       "                      ^\n" +
                       scripts +
                       "division_by_zero.rts:2:1: note: in task 'worker', spawned here\n"
                       "  spawn worker {\n"
                       "  ^\n");
}

TEST_CASE("joining an unknown task is a runtime error that suggests the right name") {
    const auto r = run_rtctl({"run", scripts + "unknown_join.rts"});
    CHECK(r.status == 1);
    CHECK(r.err.rfind(scripts + "unknown_join.rts:4:6: error: unknown variable 'wroker'; did you "
                                "mean 'worker'?",
                      0) == 0);
}

TEST_CASE("an error in a task nobody joined is still reported") {
    const auto r = run_rtctl({"run", scripts + "unjoined_error.rts"});
    CHECK(r.status == 1);
    CHECK(r.out == "root body done\n");
    CHECK(r.err.rfind(scripts + "unjoined_error.rts:4:11: error: unknown variable "
                                "'undefined_name'",
                      0) == 0);
}

TEST_CASE("integer overflow is a runtime error - not undefined behaviour") {
    const auto r = run_rtctl({"run", scripts + "overflow.rts"});
    CHECK(r.status == 1);
    CHECK(r.err.rfind(scripts + "overflow.rts:3:15: error: integer overflow in "
                                "9223372036854775807 + 1",
                      0) == 0);
}

TEST_CASE("--config with a bad TOML file exits 2 with the file's position") {
    const auto r =
        run_rtctl({"run", "examples/scripts/hello.rts", "--config", scripts + "bad.toml"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err.rfind(scripts + "bad.toml:3:1: error: unknown key 'plugn' in [reactor]; did you "
                                "mean 'plugin'?",
                      0) == 0);
}

TEST_CASE("--config with a good file - and config/default.toml - run the script") {
    for (const std::string& file : {scripts + "good.toml", std::string("config/default.toml")}) {
        CAPTURE(file);
        const auto r = run_rtctl({"run", "examples/scripts/counting.rts", "-c", file});
        CHECK(r.err == "");
        CHECK(r.status == 0);
        CHECK(r.out.rfind("sum of the squares of 1..10 = 385\n", 0) == 0);
    }
}

TEST_CASE("--set overrides reach the runtime") {
    // An unknown reactor proves the override was applied: it is refused, as in a file.
    const auto missing =
        run_rtctl({"run", "--set", "reactor.plugin=nosuch", "examples/scripts/counting.rts"});
    CHECK(missing.status == 2);
    CHECK(missing.out == "");
    CHECK(missing.err.rfind("--set:1:16: error: unknown reactor plugin 'nosuch' in "
                            "'reactor.plugin'",
                            0) == 0);

    // Over a file, and repeated: the last word wins.
    const auto fixed =
        run_rtctl({"run", "examples/scripts/counting.rts", "--config", scripts + "good.toml",
                   "--set", "reactor.plugin=nosuch", "--set", "reactor.plugin=epoll"});
    CHECK(fixed.err == "");
    CHECK(fixed.status == 0);

    const auto typo =
        run_rtctl({"run", "examples/scripts/counting.rts", "--set", "reactr.plugin=epoll"});
    CHECK(typo.status == 2);
    CHECK(typo.err ==
          "--set:1:1: error: unknown key 'reactr' in the top level; did you mean "
          "'reactor'? (valid: runtime, plugins, blocking, trace, reactor, timer, lanes)\n");
}

TEST_CASE("runtime.workers other than 1 is refused by the current_thread runtime - saying why") {
    const auto r =
        run_rtctl({"run", "--set", "runtime.workers=2", "examples/scripts/counting.rts"});
    CHECK(r.status == 1);
    CHECK(r.out == "");
    CHECK(r.err ==
          "rtctl: error: runtime.workers = 2: the current_thread flavor runs exactly one worker; "
          "set workers = 1, or flavor = \"multi_thread\" for more\n");
}

TEST_CASE("rtctl check: exit 0 when valid - 2 with the position when not") {
    const auto good = run_rtctl({"check", "examples/scripts/hello.rts"});
    CHECK(good.status == 0);
    CHECK(good.out == "examples/scripts/hello.rts: ok (6 top-level statements, 0 functions)\n");
    const auto bad = run_rtctl({"check", scripts + "syntax_error.rts"});
    CHECK(bad.status == 2);
    CHECK(bad.err.rfind(scripts + "syntax_error.rts:2:15: error:", 0) == 0);
    // check does not run anything, so a runtime error of values is not its business.
    CHECK(run_rtctl({"check", scripts + "division_by_zero.rts"}).status == 0);
    // Names are: every unknown variable and redeclaration, each at its place.
    const auto names = run_rtctl({"check", scripts + "unjoined_error.rts"});
    CHECK(names.status == 2);
    CHECK(names.out == "");
    CHECK(names.err == scripts +
                           "unjoined_error.rts:4:11: error: unknown variable 'undefined_name'\n"
                           "      print undefined_name\n"
                           "            ^\n");
}

TEST_CASE("usage errors and unreadable scripts exit 2") {
    CHECK(run_rtctl({}).status == 2);
    CHECK(run_rtctl({"run"}).status == 2);
    CHECK(run_rtctl({"frobnicate"}).status == 2);
    const auto missing = run_rtctl({"run", "no/such/script.rts"});
    CHECK(missing.status == 2);
    CHECK(missing.err ==
          "rtctl: error: cannot read script 'no/such/script.rts': No such file or directory\n");
    CHECK(run_rtctl({"run", "examples"}).status == 2);
    CHECK(run_rtctl({"--help"}).status == 0);
}

TEST_CASE("plugin options from TOML and --set reach the plugins") {
    const auto tuned =
        run_rtctl({"run", "examples/scripts/hello.rts", "--config", "examples/configs/tuned.toml"});
    CHECK(tuned.err == "");
    CHECK(tuned.status == 0);
    CHECK(tuned.out.rfind("hello from the root task\na: tick 1\nb: tock 1\n", 0) == 0);

    // The wheel declares tick_us >= 10: a --set of 5 is refused before the
    // runtime starts, against that declaration, as the same key in a file is.
    const auto refused =
        run_rtctl({"run", "examples/scripts/counting.rts", "--config",
                   "examples/configs/tuned.toml", "--set", "timer.wheel.tick_us=5"});
    CHECK(refused.status == 2);
    CHECK(refused.out == "");
    CHECK(refused.err ==
          "--set:1:21: error: option 'tick_us' in [timer.wheel] is 5, out of its range "
          "10..1000000 (default: 1000)\n");
}
