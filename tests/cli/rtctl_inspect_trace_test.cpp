// rtctl inspect TRACE.json on traces that rtctl run --trace wrote, its
// lints, its SVG timeline and its errors on files that are not traces.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rtctl_process.hpp"

namespace {

/// A temporary file's path, removed when it goes.
struct temp_file {
    std::string path;
    explicit temp_file(const std::string& suffix) {
        char pattern[] = "/tmp/rtctl-inspect-XXXXXX";
        const int fd = mkstemp(pattern);
        REQUIRE(fd >= 0);
        close(fd);
        unlink(pattern);
        path = std::string(pattern) + suffix;
    }
    ~temp_file() { unlink(path.c_str()); }
};

std::string write_temp(const temp_file& file, const std::string& text) {
    std::ofstream(file.path, std::ios::binary) << text;
    return file.path;
}

/// The number after `label` in `text` ("timers: 3 arm" -> 3 for "timers: ").
std::uint64_t number_after(const std::string& text, const std::string& label) {
    const std::size_t at = text.find(label);
    REQUIRE(at != std::string::npos);
    return std::stoull(text.substr(at + label.size()));
}

std::vector<std::string> flavor_args(const std::string& flavor) {
    if (flavor == "multi_thread")
        return {"--set", "runtime.flavor=multi_thread", "--set", "runtime.workers=2"};
    return {"--set", "runtime.flavor=current_thread"};
}

}  // namespace

TEST_CASE("inspect TRACE: a real trace's tasks and timers agree with the run's own counters") {
    for (const std::string flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        temp_file trace(".json");
        std::vector<std::string> args{"run", "examples/scripts/fanout.rts", "--trace", trace.path,
                                      "--stats=json"};
        for (const std::string& a : flavor_args(flavor))
            args.push_back(a);
        const rtctl_result run = run_rtctl(args);
        REQUIRE(run.status == 0);
        const nlohmann::json stats = nlohmann::json::parse(run.err);

        const rtctl_result r = run_rtctl({"inspect", trace.path});
        CHECK(r.status == 0);
        CHECK(r.err == "");
        CHECK(r.out.find(trace.path + ": ") == 0);
        const std::size_t tasks_at = r.out.find("\ntasks: ");
        REQUIRE(tasks_at != std::string::npos);
        const std::string tasks = r.out.substr(tasks_at, r.out.find('\n', tasks_at + 1) - tasks_at);
        CAPTURE(tasks);
        CHECK(number_after(tasks, "\ntasks: ") == stats.at("tasks_spawned").get<std::uint64_t>());
        CHECK(number_after(tasks, " (") == stats.at("tasks_completed").get<std::uint64_t>());
        CHECK(number_after(tasks, " completed, ") ==
              stats.at("tasks_cancelled").get<std::uint64_t>());
        CHECK(number_after(tasks, " cancelled, ") ==
              stats.at("tasks_panicked").get<std::uint64_t>());
        CHECK(tasks.find(", 0 not ended)") != std::string::npos);
        CHECK(number_after(r.out, "\ntimers: ") == stats.at("timers_armed").get<std::uint64_t>());
        // (The run's counters are read when its top level ends: on two
        // workers a timer may still fire or be cancelled after that.)
        CHECK(number_after(r.out, " arm, ") >= stats.at("timers_fired").get<std::uint64_t>());
        // The five workers, named by the script and placed where it spawns them.
        std::size_t work = 0;
        for (std::size_t at = r.out.find("  'work' (task "); at != std::string::npos;
             at = r.out.find("  'work' (task ", at + 1)) {
            ++work;
            CHECK(r.out.substr(at, r.out.find('\n', at) - at)
                      .ends_with(", spawned at examples/scripts/fanout.rts:17"));
        }
        CHECK(work == 5);
        CHECK(r.out.find("\nwakes: ") != std::string::npos);
        CHECK(r.out.find("; wake to poll: p50 ") != std::string::npos);
        CHECK(r.out.find("\nlanes: ") != std::string::npos);
        // No task of fanout.rts wakes itself or is lost (a poll may take over
        // 1 ms on a slow build: that lint depends on the machine).
        CHECK(r.out.find("\nlints: ") != std::string::npos);
        CHECK(r.out.find(" woke itself ") == std::string::npos);
        CHECK(r.out.find(" can never run again") == std::string::npos);
    }
}

TEST_CASE(
    "inspect TRACE: a poll over 1 ms is a lint with the task's name - worker - and spawn site") {
    for (const std::string flavor : {"current_thread", "multi_thread"}) {
        CAPTURE(flavor);
        temp_file trace(".json");
        std::vector<std::string> args{"run", "tests/cli/scripts/trace_lints.rts", "--trace",
                                      trace.path};
        for (const std::string& a : flavor_args(flavor))
            args.push_back(a);
        REQUIRE(run_rtctl(args).status == 0);
        const rtctl_result r = run_rtctl({"inspect", trace.path});
        CHECK(r.status == 0);
        const std::size_t lint = r.out.find("\n  task 'holder' (task ");
        REQUIRE(lint != std::string::npos);
        const std::string line = r.out.substr(lint + 1, r.out.find('\n', lint + 1) - lint - 1);
        CAPTURE(line);
        CHECK(line.find(") held worker ") != std::string::npos);
        CHECK(line.find(" ms at tests/cli/scripts/trace_lints.rts:3") != std::string::npos);
        // spin 3ms: at least 3 ms.
        const std::size_t held = line.find(" for ");
        REQUIRE(held != std::string::npos);
        CHECK(std::stod(line.substr(held + 5)) >= 3.0);
        // The yielder polled once per yield and once more.
        const std::size_t yielder = r.out.find("  'yielder' (task ");
        REQUIRE(yielder != std::string::npos);
        CHECK(r.out.substr(yielder, r.out.find('\n', yielder) - yielder).find(", 11 polls, ") !=
              std::string::npos);
    }
}

TEST_CASE("inspect TRACE: a TCP script's readiness events are counted as I/O") {
    temp_file trace(".json");
    REQUIRE(run_rtctl({"run", "examples/scripts/tcp_echo.rts", "--trace", trace.path}).status == 0);
    const rtctl_result r = run_rtctl({"inspect", trace.path});
    CHECK(r.status == 0);
    CHECK(number_after(r.out, "\nio: ") > 0);
}

TEST_CASE("inspect TRACE: a task that woke itself for most of its wakes is a lint") {
    temp_file trace(".json");
    REQUIRE(
        run_rtctl({"run", "tests/cli/scripts/cancels_itself.rts", "--trace", trace.path}).status ==
        0);
    const rtctl_result r = run_rtctl({"inspect", trace.path});
    CHECK(r.status == 0);
    CHECK(r.out.find(") woke itself for 1 of its 1 wake; spawned at "
                     "tests/cli/scripts/cancels_itself.rts:4\n") != std::string::npos);
    CHECK(r.out.find("  task 'worker' (task ") != std::string::npos);
}

TEST_CASE("inspect TRACE: a C++ program's lost wake-up and large frame are lints") {
    temp_file trace(".json");
    const rtctl_result made = run_program(LOST_WAKE_TRACE_PATH, {trace.path});
    CAPTURE(made.err);
    REQUIRE(made.status == 0);
    const rtctl_result r = run_rtctl({"inspect", trace.path});
    CHECK(r.status == 0);
    CAPTURE(r.out);
    CHECK(r.out.find("\nlints: 2\n") != std::string::npos);
    const std::size_t lost = r.out.find("\n  task 'forgotten' (task ");
    REQUIRE(lost != std::string::npos);
    const std::string lost_line = r.out.substr(lost + 1, r.out.find('\n', lost + 1) - lost - 1);
    CHECK(lost_line.find(") can never run again: it was left pending with no waker (a lost "
                         "wake-up); spawned at ") != std::string::npos);
    CHECK(lost_line.find("lost_wake_trace.cpp:") != std::string::npos);
    const std::size_t big = r.out.find("\n  task 'hog' (task ");
    REQUIRE(big != std::string::npos);
    const std::string big_line = r.out.substr(big + 1, r.out.find('\n', big + 1) - big - 1);
    const std::size_t bytes_at = big_line.find(") has a coroutine frame of ");
    REQUIRE(bytes_at != std::string::npos);
    CHECK(std::stoull(big_line.substr(bytes_at + 27)) >= 40000);
    CHECK(big_line.find(" bytes, over 16384; spawned at ") != std::string::npos);
}

TEST_CASE("inspect TRACE: lost wake-ups and large frames in a fixture") {
    const std::string fixture = "tests/cli/traces/lost_wake_and_big_frame.json";
    const rtctl_result r = run_rtctl({"inspect", fixture});
    CHECK(r.status == 0);
    CHECK(r.out ==
          fixture +
              ": 6 events over 30.0 us on 1 thread (worker 0)\n"
              "tasks: 2 (1 completed, 0 cancelled, 0 panicked, 1 not ended); at most 0 alive and 0 "
              "queued at once\n"
              "busiest tasks (time polled, polls, longest poll, spawned at):\n"
              "  'hog' (task 2): 7.50 us, 1 poll, longest 7.50 us, spawned at server.rts:9\n"
              "  'forgotten' (task 1): 5.00 us, 1 poll, longest 5.00 us, spawned at server.rts:4\n"
              "wakes: 0\n"
              "lanes: 0 1 (50.0%), ready 1 (50.0%)\n"
              "timers: 0 arm, 0 fire, 0 cancel\n"
              "io: 0 ready, 0 complete\n"
              "parks: 0, 0.00 us parked\n"
              "cancel requests: 0; regions: 0 open, 0 close\n"
              "lints: 2\n"
              "  task 'forgotten' (task 1) can never run again: it was left pending with no waker "
              "(a lost wake-up); spawned at server.rts:4\n"
              "  task 'hog' (task 2) has a coroutine frame of 40000 bytes, over 16384; spawned at "
              "server.rts:9\n");
    const rtctl_result higher = run_rtctl({"inspect", fixture, "--frame-limit", "40000"});
    CHECK(higher.out.find("coroutine frame") == std::string::npos);
    CHECK(higher.out.find("lints: 1\n") != std::string::npos);
}

TEST_CASE("inspect TRACE --svg: a timeline that rsvg-convert renders - a box per poll") {
    temp_file trace(".json"), svg(".svg"), png(".png");
    REQUIRE(run_rtctl({"run", "examples/scripts/fanout.rts", "--trace", trace.path, "--set",
                       "runtime.flavor=multi_thread", "--set", "runtime.workers=2"})
                .status == 0);
    const rtctl_result r = run_rtctl({"inspect", trace.path, "--svg", svg.path});
    CHECK(r.status == 0);
    const std::string picture = slurp(svg.path);
    REQUIRE(picture.starts_with("<?xml"));
    // Every poll in a box (polls within half a pixel share one, whose
    // tooltip counts them), one arrow per wake that led to a poll.
    std::size_t polls = 0, boxed = 0, flows = 0, arrows = 0;
    const std::string events = slurp(trace.path);
    for (std::size_t at = events.find("\"cat\":\"poll\""); at != std::string::npos;
         at = events.find("\"cat\":\"poll\"", at + 1))
        ++polls;
    for (std::size_t at = events.find("\"bp\":\"e\""); at != std::string::npos;
         at = events.find("\"bp\":\"e\"", at + 1))
        ++flows;
    for (std::size_t at = picture.find("<title>"); at != std::string::npos;
         at = picture.find("<title>", at + 1)) {
        boxed += std::stoull(picture.substr(at + 7));
    }
    for (std::size_t at = picture.find("marker-end="); at != std::string::npos;
         at = picture.find("marker-end=", at + 1))
        ++arrows;
    CHECK(polls > 0);
    CHECK(boxed == polls);
    CHECK(arrows == flows);
    CHECK(picture.find(">worker 1</text>") != std::string::npos);
    const std::string command = "rsvg-convert '" + svg.path + "' -o '" + png.path + "'";
    CHECK(std::system(command.c_str()) == 0);
    CHECK(slurp(png.path).starts_with("\x89PNG"));
}

TEST_CASE("inspect: a file that is not a trace gets an error saying what - where - what to do") {
    temp_file file(".json");
    struct bad_case {
        std::string text, error;
    };
    const bad_case cases[] = {
        {"{\"traceEvents\": [\n{\"ph\":", "not valid JSON: parse error at line 2, column 7"},
        {"{\"events\": []}", "not a trace: no \"traceEvents\" array (Chrome trace-event format"},
        {"[{\"ph\":\"X\"}]", "not a trace: a trace is a JSON object whose \"traceEvents\" array"},
        {"{\"traceEvents\": {}}", "'traceEvents' is not an array; a trace is a JSON object"},
        {"{\"traceEvents\": [7]}", "event 0 is not an object"},
        {"{\"traceEvents\": [{\"ph\":\"M\",\"name\":\"thread_name\",\"tid\":0,\"args\":{\"name\":"
         "\"worker 0\"}}, {\"ph\":\"f\",\"cat\":\"wake\",\"name\":\"wake\",\"tid\":0,\"ts\":1}]}",
         "event 1 ({\"cat\":\"wake\",\"name\":\"wake\",\"ph\":\"f\",\"tid\":0,\"ts\":1}): 'id' is "
         "missing or not a number or a string"},
        {"{\"traceEvents\": [{\"ph\":\"i\",\"name\":\"spawn\",\"cat\":\"task\",\"tid\":0}]}",
         "event 0 ({\"cat\":\"task\",\"name\":\"spawn\",\"ph\":\"i\",\"tid\":0}): 'ts' is "
         "missing or not a number"},
    };
    for (const bad_case& c : cases) {
        CAPTURE(c.text);
        const rtctl_result r = run_rtctl({"inspect", write_temp(file, c.text)});
        CHECK(r.status == 2);
        CHECK(r.out == "");
        CHECK(r.err.find("rtctl: error: " + file.path + ": " + c.error) == 0);
    }
}
