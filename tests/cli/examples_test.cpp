// Every script of examples/scripts, run by the real rtctl on both flavors,
// with its exact output.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "rtctl_process.hpp"

namespace {

/// Runs examples/scripts/NAME on the current_thread flavor and on
/// multi_thread with two workers: each run must succeed quietly and print
/// EXPECTED (the examples print in an order that does not depend on threads).
void check_example(const std::string& name, const std::string& expected,
                   const std::vector<std::string>& extra = {}) {
    for (const std::string flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        std::vector<std::string> args{"run", "examples/scripts/" + name, "--set",
                                      "runtime.flavor=" + flavor};
        if (flavor == "multi_thread") args.insert(args.end(), {"--set", "runtime.workers=2"});
        args.insert(args.end(), extra.begin(), extra.end());
        const rtctl_result r = run_rtctl(args);
        CHECK(r.err == "");
        CHECK(r.status == 0);
        CHECK(r.out == expected);
    }
}

}  // namespace

TEST_CASE("hello.rts: two tasks interleave their prints across real timers") {
    check_example("hello.rts",
                  "hello from the root task\n"
                  "a: tick 1\n"
                  "b: tock 1\n"
                  "a: tick 2\n"
                  "b: tock 2\n"
                  "a: tick 3\n"
                  "b: tock 3\n"
                  "both done\n");
}

TEST_CASE("counting.rts: arithmetic - repeat - and tasks get copies of variables") {
    check_example("counting.rts",
                  "sum of the squares of 1..10 = 385\n"
                  "mean: 38 remainder: 5\n"
                  "inside the task, total = 770\n"
                  "outside it, total is still 385\n"
                  "four steps and a bit take 1.0015s\n");
}

TEST_CASE("fanout.rts: fan out to tasks - join each - look at its outcome") {
    check_example("fanout.rts",
                  "worker 1 gave 100\n"
                  "worker 2 gave 200\n"
                  "worker 3 ended with error: worker 3 found nothing\n"
                  "worker 4 gave 400\n"
                  "worker 5 gave 500\n"
                  "total 1200\n");
}

TEST_CASE("pipeline.rts: stages joined by channels - closing ends the next stage") {
    check_example("pipeline.rts",
                  "the squarers handled 10 numbers\n"
                  "sum of the squares of 1..10 = 385\n");
}

TEST_CASE("news.rts: a broadcast to every reader - a watch of the latest status - an interval") {
    check_example("news.rts",
                  "alice read 4 headlines\n"
                  "bob read 4 headlines\n"
                  "the monitor saw the publisher finish\n"
                  "status: done\n");
}

TEST_CASE("timeouts.rts: time limits - cancellation - race") {
    check_example("timeouts.rts",
                  "quick work finished in time\n"
                  "slow work was cancelled after 20ms\n"
                  "no message within 10ms\n"
                  "worker: cancelled - not needed any more\n"
                  "race won by the fast way\n");
}

TEST_CASE("region.rts: a region whose task fails cancels the others") {
    check_example("region.rts",
                  "region body done; waiting for its tasks\n"
                  "job ended: error - flaky lost its connection\n"
                  "part 2 done\n"
                  "part 1 done\n"
                  "part 0 done\n"
                  "all parts done\n");
}

TEST_CASE("tcp_echo.rts: an echo server and its clients - on epoll and on io_uring") {
    for (const std::string reactor : {"epoll", "uring"}) {
        CAPTURE(reactor);
        check_example("tcp_echo.rts",
                      "a got: hello from a\n"
                      "b got: hello from b\n"
                      "c got: hello from c\n",
                      {"--set", "reactor.plugin=" + reactor});
    }
}

TEST_CASE("the workload scripts W1 to W9 run at their small size with their checksums") {
    const std::pair<std::string, std::string> workloads[] = {
        {"w1_spawn_join_st.rts", "workload=spawn_join_st n=10000 checksum=49995000\n"},
        {"w2_spawn_join_mt.rts", "workload=spawn_join_mt n=10000 checksum=49995000\n"},
        {"w3_yield_storm.rts", "workload=yield_storm n=10000 checksum=100\n"},
        {"w4_ping_pong.rts", "workload=ping_pong n=10000 checksum=10000\n"},
        {"w5_timeout_ready.rts", "workload=timeout_ready n=10000 checksum=10000\n"},
        {"w6_sleep_storm.rts", "workload=sleep_storm n=1000 checksum=50898 early=0\n"},
        {"w7_tcp_echo.rts", "workload=tcp_echo n=800 checksum=800\n"},
        {"w8_block_on_ready.rts", "workload=block_on_ready n=10000 checksum=10000\n"},
        {"w9_timeout_pending.rts", "workload=timeout_pending n=10000 checksum=10000\n"},
    };
    for (const auto& [script, expected] : workloads) {
        CAPTURE(script);
        check_example(script, expected);
    }
}

TEST_CASE("lab_schedules.rts: every step logged once - each task's in its own order") {
    // The interleaving is the scheduler's (rtctl_lab_test.cpp replays it by
    // seed); what holds on every flavor is each task's own order.
    for (const std::string flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        const rtctl_result r = run_rtctl(
            {"run", "examples/scripts/lab_schedules.rts", "--set", "runtime.flavor=" + flavor});
        CHECK(r.status == 0);
        CHECK(r.err == "");
        REQUIRE(r.out.size() == 28);
        for (const std::string task : {"a", "b", "c"}) {
            const std::size_t first = r.out.find(task + "0 ");
            const std::size_t second = r.out.find(task + "1 ");
            const std::size_t third = r.out.find(task + "2 ");
            CHECK(first < second);
            CHECK(second < third);
            CHECK(third != std::string::npos);
        }
    }
}

TEST_CASE("every script in examples/scripts has a test here - and checks") {
    // A new example must be added above; rtctl check must accept each one.
    const std::vector<std::string> tested{"counting.rts",
                                          "fanout.rts",
                                          "hello.rts",
                                          "lab_schedules.rts",
                                          "news.rts",
                                          "pipeline.rts",
                                          "region.rts",
                                          "tcp_echo.rts",
                                          "timeouts.rts",
                                          "w1_spawn_join_st.rts",
                                          "w2_spawn_join_mt.rts",
                                          "w3_yield_storm.rts",
                                          "w4_ping_pong.rts",
                                          "w5_timeout_ready.rts",
                                          "w6_sleep_storm.rts",
                                          "w7_tcp_echo.rts",
                                          "w8_block_on_ready.rts",
                                          "w9_timeout_pending.rts"};
    std::vector<std::string> found;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(RTKIT_SOURCE_DIR) + "/examples/scripts"))
        if (entry.path().extension() == ".rts") found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    CHECK(found == tested);
    for (const std::string& script : found) {
        CAPTURE(script);
        CHECK(run_rtctl({"check", "examples/scripts/" + script}).status == 0);
    }
}

TEST_CASE("the script of the top README prints what the README says it prints") {
    std::ifstream in(std::string(RTKIT_SOURCE_DIR) + "/README.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string readme = text.str();
    // The script: from its "# fetch.rts" line to the end of its code block.
    const std::size_t start = readme.find("# fetch.rts");
    REQUIRE(start != std::string::npos);
    const std::string script = readme.substr(start, readme.find("```", start) - start);
    // The output: the indented lines after the command that runs it.
    const std::string command = "    $ build/release/bin/rtctl run fetch.rts";
    std::size_t at = readme.find(command);
    REQUIRE(at != std::string::npos);
    at = readme.find('\n', at) + 1;
    std::string expected;
    while (readme.compare(at, 4, "    ") == 0) {
        const std::size_t end = readme.find('\n', at);
        expected += readme.substr(at + 4, end - at - 4) + '\n';
        at = end + 1;
    }
    char path[] = "/tmp/rtctl-readme-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size()));
    close(fd);
    const auto r = run_rtctl({"run", path});
    unlink(path);
    CHECK(r.err == "");
    CHECK(r.status == 0);
    CHECK(r.out == expected);
}
