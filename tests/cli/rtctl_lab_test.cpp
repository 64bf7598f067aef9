// rtctl run --lab: a replayable run on one worker, seeded lanes and virtual
// time. The real binary.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "rtctl_process.hpp"

namespace {

const std::string schedules = "examples/scripts/lab_schedules.rts";

rtctl_result run_lab(const std::string& script, int seed) {
    return run_rtctl({"run", script, "--lab", "--seed", std::to_string(seed)});
}

}  // namespace

TEST_CASE("--lab - the same seed prints the same output byte for byte") {
    for (const int seed : {0, 7, 12345}) {
        CAPTURE(seed);
        const rtctl_result first = run_lab(schedules, seed);
        CHECK(first.status == 0);
        CHECK(first.err == "lab seed " + std::to_string(seed) + "\n");
        for (int again = 0; again < 3; ++again) {
            const rtctl_result next = run_lab(schedules, seed);
            CHECK(next.status == 0);
            CHECK(next.out == first.out);
            CHECK(next.err == first.err);
        }
    }
}

TEST_CASE("--lab - different seeds run the tasks in different orders") {
    // Nine log entries: each order is one interleaving of three tasks.
    std::set<std::string> outputs;
    for (int seed = 0; seed < 20; ++seed) {
        const rtctl_result r = run_lab(schedules, seed);
        REQUIRE(r.status == 0);
        CHECK(r.out.size() == std::string("a0 a1 a2 b0 b1 b2 c0 c1 c2 \n").size());
        outputs.insert(r.out);
    }
    CHECK(outputs.size() >= 5);
}

TEST_CASE("--lab without --seed runs seed 0") {
    const rtctl_result r = run_rtctl({"run", schedules, "--lab"});
    CHECK(r.status == 0);
    CHECK(r.err == "lab seed 0\n");
    CHECK(r.out == run_lab(schedules, 0).out);
}

TEST_CASE("--lab - an hour of sleeps ends at once on the virtual clock - in deadline order") {
    rtctl_limits limits;
    limits.timeout_seconds = 30;  // a real hour would be killed here
    const rtctl_result r =
        run_rtctl({"run", "tests/cli/scripts/sleeps_an_hour.rts", "--lab", "--seed", "3"}, limits);
    CHECK(r.status == 0);
    CHECK(r.err == "lab seed 3\n");
    CHECK(r.out ==
          "second woke at 1800s\n"
          "first woke at 3600s\n"
          "the timeout fired at 3610s\n");
}

TEST_CASE("--lab refuses a script that opens a socket or spins - before it runs") {
    const rtctl_result sockets = run_rtctl({"run", "examples/scripts/tcp_echo.rts", "--lab"});
    CHECK(sockets.status == 2);
    CHECK(sockets.out == "");
    CHECK(sockets.err.rfind("lab seed 0\nexamples/scripts/tcp_echo.rts:", 0) == 0);
    CHECK(sockets.err.find("error: a lab run refuses 'listen': it opens a socket") !=
          std::string::npos);

    const rtctl_result spins = run_rtctl({"run", "tests/cli/scripts/spins.rts", "--lab"});
    CHECK(spins.status == 2);
    CHECK(spins.out == "");
    CHECK(spins.err.find("tests/cli/scripts/spins.rts:3:1: error: a lab run refuses 'spin'") !=
          std::string::npos);
}

TEST_CASE(
    "--lab overrides the configured flavor and lanes - a multi_thread config runs as one "
    "worker") {
    const rtctl_result base = run_lab(schedules, 5);
    const rtctl_result r =
        run_rtctl({"run", schedules, "--config", "examples/configs/multi_thread.toml", "--lab",
                   "--seed", "5"});
    CHECK(r.status == 0);
    CHECK(r.out == base.out);
}

TEST_CASE("--seed without --lab is a usage error") {
    const rtctl_result r = run_rtctl({"run", schedules, "--seed", "3"});
    CHECK(r.status == 2);
    CHECK(r.err.find("--lab") != std::string::npos);
}

TEST_CASE("examples/configs/lab.toml is the setup of --lab --seed 7") {
    const rtctl_result from_toml =
        run_rtctl({"run", schedules, "--config", "examples/configs/lab.toml"});
    CHECK(from_toml.status == 0);
    CHECK(from_toml.err == "");
    CHECK(from_toml.out == run_lab(schedules, 7).out);
}
