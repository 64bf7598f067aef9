// rtctl run --trace FILE: the real binary writes a script's trace, read back
// with nlohmann-json (the format: kernel/README.md, "Trace events").
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rtctl_process.hpp"

using json = nlohmann::json;

namespace {

const std::string known = "tests/cli/scripts/trace_known.rts";

/// A trace file of its own for each use, removed at the end.
struct trace_file {
    std::filesystem::path path;
    explicit trace_file(const std::string& tag)
        : path(std::filesystem::temp_directory_path() /
               ("rtctl-trace-" + std::to_string(::getpid()) + "-" + tag + ".json")) {
        std::filesystem::remove(path);
    }
    ~trace_file() { std::filesystem::remove(path); }
    std::string text() const {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream all;
        all << in.rdbuf();
        return all.str();
    }
    json events() const {
        const json trace = json::parse(text());
        CHECK(trace["displayTimeUnit"] == "ns");
        return trace["traceEvents"];
    }
};

std::vector<json> where(const json& events, const std::string& ph, const std::string& name) {
    std::vector<json> found;
    for (const json& e : events)
        if (e["ph"] == ph && e["name"] == name) found.push_back(e);
    return found;
}

}  // namespace

TEST_CASE("rtctl run --trace - the known script's trace has its tracks slices flows and counts") {
    trace_file file("known");
    const rtctl_result r =
        run_rtctl({"run", known, "--lab", "--seed", "1", "--trace", file.path.string()});
    REQUIRE(r.status == 0);
    CHECK(r.out == "done\n");
    const json events = file.events();

    // One track: the lab's one worker.
    const auto tracks = where(events, "M", "thread_name");
    REQUIRE(tracks.size() == 1);
    CHECK(tracks[0]["tid"] == 0);
    CHECK(tracks[0]["args"]["name"] == "worker 0");
    for (const json& e : events) {
        CAPTURE(e.dump());
        CHECK(e["pid"] == 1);
        CHECK(e["tid"] == 0);
        if (e["ph"] != "M") CHECK(e["ts"].is_number());
    }

    // The two script tasks, spawned by name at their lines, each ending once.
    std::map<std::string, std::uint64_t> ids;
    for (const json& s : where(events, "i", "spawn"))
        if (!s["args"]["name"].get<std::string>().empty())
            ids[s["args"]["name"]] = s["args"]["task"];
    REQUIRE(ids.size() == 2);
    for (const json& s : where(events, "i", "spawn")) {
        if (s["args"]["name"] == "producer") CHECK(s["args"]["site"] == known + ":5");
        if (s["args"]["name"] == "consumer") CHECK(s["args"]["site"] == known + ":11");
    }
    for (const auto& [name, id] : ids) {
        CAPTURE(name);
        int ends = 0;
        for (const json& e : where(events, "i", "end"))
            if (e["args"]["task"] == id) {
                CHECK(e["args"]["outcome"] == "completed");
                ++ends;
            }
        CHECK(ends == 1);
    }
    // The producer waits once for room, the consumer for its sleep and for
    // the first value: slices named after them.
    CHECK(where(events, "X", "producer").size() == 2);
    CHECK(where(events, "X", "consumer").size() == 3);
    // Its sleep: armed, fired at 10 ms of virtual time, and the consumer's
    // next poll is there, at the end of the wake's arrow.
    CHECK(where(events, "i", "fire").size() == 1);
    CHECK(where(events, "i", "fire")[0]["ts"] == 10000.0);
    bool woke_consumer = false;
    for (const json& s : where(events, "s", "wake"))
        if (s["args"]["task"] == ids["consumer"]) woke_consumer = true;
    CHECK(woke_consumer);
    // Every wake's arrow ends at a poll.
    const auto starts = where(events, "s", "wake");
    const auto ends = where(events, "f", "wake");
    CHECK(starts.size() == 6);
    CHECK(ends.size() == starts.size());
    for (const json& f : ends) {
        int matched = 0;
        for (const json& s : starts)
            matched += s["id"] == f["id"];
        CHECK(matched == 1);
    }
    CHECK_FALSE(where(events, "C", "tasks").empty());
}

TEST_CASE("rtctl run --trace --lab - the same seed writes the same trace byte for byte") {
    for (const char* seed : {"0", "7"}) {
        CAPTURE(seed);
        trace_file first("lab-first"), again("lab-again");
        REQUIRE(run_rtctl({"run", "examples/scripts/lab_schedules.rts", "--lab", "--seed", seed,
                           "--trace", first.path.string()})
                    .status == 0);
        REQUIRE(run_rtctl({"run", "examples/scripts/lab_schedules.rts", "--lab", "--seed", seed,
                           "--trace", again.path.string()})
                    .status == 0);
        CHECK_FALSE(first.text().empty());
        CHECK(first.text() == again.text());
    }
}

TEST_CASE("rtctl run - tracing disabled writes nothing") {
    trace_file file("disabled");
    const rtctl_result r =
        run_rtctl({"run", known, "--set", "trace.file=\"" + file.path.string() + "\""});
    CHECK(r.status == 0);
    CHECK_FALSE(std::filesystem::exists(file.path));
}

TEST_CASE("rtctl run --trace - a file that cannot be written is a clear error") {
    const rtctl_result r = run_rtctl({"run", known, "--trace", "/nonexistent-rtctl-dir/t.json"});
    CHECK(r.status == 1);
    CHECK(r.err.find("cannot write the trace file '/nonexistent-rtctl-dir/t.json'") !=
          std::string::npos);
}

TEST_CASE("rtctl run - a bad [trace] buffer_events is refused before the run") {
    const rtctl_result r = run_rtctl({"run", known, "--set", "trace.buffer_events=0"});
    CHECK(r.status == 2);
    CHECK(r.err.find("'trace.buffer_events' must be between 1 and 16777216, not 0") !=
          std::string::npos);
}
