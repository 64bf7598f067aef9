// rtkit::lab_config: a seeded, replayable runtime for embedders.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <string>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Notes `name` three times, yielding before each note, then sleeps
/// `name`'s number of virtual minutes and notes it in upper case.
task<void> note_steps(std::string& log, char name) {
    for (int step = 0; step < 3; ++step) {
        co_await yield_now();
        log += name;
    }
    co_await sleep(std::chrono::minutes(name - 'a' + 1));
    log += static_cast<char>(name - 'a' + 'A');
}

/// Four tasks' notes in the order they ran, and the clock's reading when the
/// last one woke.
std::string run_schedule(std::uint64_t seed) {
    runtime rt(lab_config(seed));
    std::string log;
    rt.block_on([](std::string& log) -> task<void> {
        std::vector<join_handle<void>> tasks;
        for (char name : std::string("abcd"))
            tasks.push_back(spawn(note_steps(log, name)));
        for (auto& t : tasks)
            (void)co_await std::move(t);
        log += " at " + std::to_string(cx::current().now().time_since_epoch().count());
    }(log));
    return log;
}

}  // namespace

TEST_CASE(
    "lab_config: the same seed gives the same order and times - another seed another "
    "order") {
    std::set<std::string> orders;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
        CAPTURE(seed);
        const std::string first = run_schedule(seed);
        CHECK(run_schedule(seed) == first);
        // The sleeps end in deadline order, four minutes after the start.
        CHECK(first.substr(12) == "ABCD at 240000000000");
        orders.insert(first);
    }
    CHECK(orders.size() >= 4);
}

TEST_CASE("lab_config: one worker on the virtual clock with the lab lanes") {
    const runtime_config config = lab_config(42);
    CHECK(config.flavor == "current_thread");
    CHECK(config.clock == "virtual");
    runtime rt(config);
    const runtime_description& d = rt.description();
    CHECK(d.lanes.find("lab") != std::string::npos);
    CHECK(d.clock == "virtual");
}
