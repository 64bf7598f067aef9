// rtctl run --stats and --stats=json: the runtime's counters after a run.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rtctl_process.hpp"

namespace {

/// The last line of `text` (which ends with a newline).
std::string last_line(const std::string& text) {
    const std::string body = text.substr(0, text.size() - 1);
    const std::size_t start = body.rfind('\n');
    return start == std::string::npos ? body : body.substr(start + 1);
}

/// Every example script, run by rtctl on both flavors with --stats=json.
/// Calls check(flavor, script, counters) for each run.
template <typename Check>
void for_each_example_run(Check check) {
    std::vector<std::string> scripts;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(RTKIT_SOURCE_DIR) + "/examples/scripts"))
        if (entry.path().extension() == ".rts") scripts.push_back(entry.path().filename());
    REQUIRE(scripts.size() >= 10);
    for (const std::string& script : scripts) {
        for (const std::string flavor : {"current_thread", "multi_thread"}) {
            CAPTURE(script);
            CAPTURE(flavor);
            std::vector<std::string> args{"run", "examples/scripts/" + script, "--set",
                                          "runtime.flavor=" + flavor, "--stats=json"};
            if (flavor == "multi_thread") args.insert(args.end(), {"--set", "runtime.workers=2"});
            const rtctl_result r = run_rtctl(args);
            REQUIRE(r.status == 0);
            const nlohmann::json counters = nlohmann::json::parse(last_line(r.err));
            check(flavor, counters);
        }
    }
}

}  // namespace

TEST_CASE("--stats=json: the task counts add up on every example script on both flavors") {
    for_each_example_run([](const std::string& flavor, const nlohmann::json& c) {
        const std::uint64_t spawned = c.at("tasks_spawned");
        CHECK(spawned > 0);
        CHECK(spawned == c.at("tasks_completed").get<std::uint64_t>() +
                             c.at("tasks_cancelled").get<std::uint64_t>() +
                             c.at("tasks_panicked").get<std::uint64_t>() +
                             c.at("tasks_alive").get<std::uint64_t>());
        CHECK(c.at("tasks_peak_alive").get<std::uint64_t>() >= 1);
        CHECK(c.at("polls").get<std::uint64_t>() >= spawned);
        CHECK(c.at("elapsed_ns").get<std::int64_t>() > 0);
        // The totals are the workers' sums.
        const nlohmann::json& workers = c.at("workers");
        REQUIRE(workers.size() == (flavor == "multi_thread" ? 2u : 1u));
        std::uint64_t polls = 0, spawned_by_workers = 0, armed = 0;
        for (const nlohmann::json& w : workers) {
            polls += w.at("polls").get<std::uint64_t>();
            spawned_by_workers += w.at("tasks_spawned").get<std::uint64_t>();
            armed += w.at("timers_armed").get<std::uint64_t>();
        }
        CHECK(polls == c.at("polls").get<std::uint64_t>());
        CHECK(spawned_by_workers == spawned);
        CHECK(armed == c.at("timers_armed").get<std::uint64_t>());
    });
}

TEST_CASE("--stats=json: one object on stderr's last line with every counter - stdout untouched") {
    const rtctl_result plain = run_rtctl({"run", "examples/scripts/fanout.rts"});
    const rtctl_result r = run_rtctl({"run", "examples/scripts/fanout.rts", "--stats=json"});
    REQUIRE(r.status == 0);
    CHECK(r.out == plain.out);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
    const nlohmann::json c = nlohmann::json::parse(r.err);
    for (const char* name : {"elapsed_ns",
                             "tasks_spawned",
                             "tasks_completed",
                             "tasks_cancelled",
                             "tasks_panicked",
                             "tasks_alive",
                             "tasks_peak_alive",
                             "polls",
                             "cancel_lane_dispatches",
                             "wakes_same_worker",
                             "wakes_other_worker",
                             "wakes_outside",
                             "steals",
                             "injection_queue_depth",
                             "parks",
                             "time_parked_ns",
                             "reactor_polls",
                             "reactor_events",
                             "timers_armed",
                             "timers_fired",
                             "timers_cancelled",
                             "timers_pending",
                             "queued",
                             "roots_running",
                             "block_on_reserved_borrows",
                             "io_registrations",
                             "workers"}) {
        CAPTURE(name);
        CHECK(c.contains(name));
    }
    // fanout.rts spawns five workers, each of which sleeps.
    CHECK(c.at("tasks_spawned").get<int>() >= 5);
    CHECK(c.at("timers_fired").get<int>() >= 1);
}

TEST_CASE("--stats: a table on stderr after the script's own errors - also when it fails") {
    const rtctl_result r = run_rtctl({"run", "tests/cli/scripts/division_by_zero.rts", "--stats"});
    CHECK(r.status == 1);
    const std::size_t error = r.err.find("error: division by zero");
    const std::size_t table = r.err.find("rtctl: runtime statistics (");
    REQUIRE(error != std::string::npos);
    REQUIRE(table != std::string::npos);
    CHECK(error < table);
    CHECK(r.err.find("\n  tasks_panicked ") != std::string::npos);
    CHECK(r.err.find("\n  timers_pending ") != std::string::npos);
}

TEST_CASE("--stats: on two workers the table has a column per worker") {
    const rtctl_result r =
        run_rtctl({"run", "examples/scripts/hello.rts", "--set", "runtime.flavor=multi_thread",
                   "--set", "runtime.workers=2", "--stats"});
    CHECK(r.status == 0);
    CHECK(r.err.find("2 workers)\n") != std::string::npos);
    CHECK(r.err.find("total      worker 0      worker 1\n") != std::string::npos);
}

TEST_CASE("--stats with an unknown format is refused before the script runs") {
    const rtctl_result r = run_rtctl({"run", "examples/scripts/hello.rts", "--stats=xml"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err.find("'xml' is not a format of --stats") != std::string::npos);
}

TEST_CASE("--stats does not take the next word as its format") {
    const rtctl_result r = run_rtctl({"run", "--stats", "examples/scripts/counting.rts"});
    CHECK(r.status == 0);
    CHECK(r.err.find("rtctl: runtime statistics (") == 0);
}
