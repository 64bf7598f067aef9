// rtctl inspect SCRIPT: the parsed program as a tree of tasks and blocks.
#include <doctest/doctest.h>

#include "rtctl_process.hpp"

TEST_CASE("inspect SCRIPT: each task and block on a line of its own with its position") {
    const rtctl_result r = run_rtctl({"inspect", "examples/scripts/hello.rts"});
    CHECK(r.status == 0);
    CHECK(r.err == "");
    CHECK(r.out ==
          "examples/scripts/hello.rts\n"
          "1:1     top level: task, 6 statements\n"
          "6:1       spawn a: task, 2 statements\n"
          "8:5         repeat, 3 statements\n"
          "15:1      spawn b: task, 3 statements\n"
          "18:5        repeat, 3 statements\n");
}

TEST_CASE("inspect SCRIPT: functions - tasks spawned in expressions - races - else blocks") {
    const rtctl_result tcp = run_rtctl({"inspect", "examples/scripts/tcp_echo.rts"});
    CHECK(tcp.status == 0);
    CHECK(tcp.out.find("22:1    fn client: function, 5 statements\n") != std::string::npos);
    CHECK(tcp.out.find("10:9          spawn echo: task, 3 statements\n"
                       "12:13           while, 2 statements\n") != std::string::npos);
    CHECK(tcp.out.find("30:9      spawn client: task running fn client\n") != std::string::npos);
    const rtctl_result timeouts = run_rtctl({"inspect", "examples/scripts/timeouts.rts"});
    CHECK(timeouts.status == 0);
    CHECK(timeouts.out.find("5:1       timeout, 2 statements\n"
                            "8:8       else, 1 statement\n") != std::string::npos);
    CHECK(timeouts.out.find("28:14     spawn worker: task, 3 statements\n") != std::string::npos);
    CHECK(timeouts.out.find("39:14     race: 2 tasks\n"
                            "39:19       task, 2 statements\n"
                            "42:6        task, 2 statements\n") != std::string::npos);
}

TEST_CASE("inspect SCRIPT: a syntax error is reported as run reports it - exit 2") {
    const rtctl_result r = run_rtctl({"inspect", "tests/cli/scripts/syntax_error.rts"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err.find("tests/cli/scripts/syntax_error.rts:") == 0);
    CHECK(r.err.find(": error: ") != std::string::npos);
}

TEST_CASE("inspect: a missing file - a directory - --svg with a script are refused with exit 2") {
    const rtctl_result missing = run_rtctl({"inspect", "no/such/file.rts"});
    CHECK(missing.status == 2);
    CHECK(missing.err ==
          "rtctl: error: cannot read 'no/such/file.rts': No such file or directory\n");
    const rtctl_result directory = run_rtctl({"inspect", "examples"});
    CHECK(directory.status == 2);
    CHECK(directory.err.find("it is a directory") != std::string::npos);
    const rtctl_result svg =
        run_rtctl({"inspect", "examples/scripts/hello.rts", "--svg", "/tmp/never.svg"});
    CHECK(svg.status == 2);
    CHECK(svg.err.find("--svg draws a trace's timeline") != std::string::npos);
}
