// Woken tasks before deferred ones, through a runtime: with three_lane (which
// answers rtkit.lanes_deferred.v1) a task whose wait ended runs before tasks
// not polled yet, a yield still lets every queued task run first, a spawner
// waits behind what it spawned, and a stream of woken tasks lets a deferred
// one run after ready_streak_limit of them. The fifo policy, which does not
// defer, shows the order each test would see without it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"

using namespace rtkit;

namespace {

runtime_config with_lanes(const char* plugin) {
    runtime_config config;
    config.lanes.preference = {plugin};
    return config;
}

/// Logs `mark` once: a task that needs one poll.
task<void> log_once(std::string& log, char mark) {
    log += mark;
    co_return;
}

/// Waits for `go`, then logs `mark`.
task<void> log_after(test::manual_event& go, std::string& log, char mark) {
    co_await go.wait();
    log += mark;
}

/// Logs 'W' after `go`, with `count` new tasks logging 'n' queued ahead of
/// the wake: the log is the order the lanes gave.
std::string woken_among_new_tasks(runtime& rt, int count) {
    std::string log;
    test::manual_event go;
    rt.block_on([&]() -> task<void> {
        auto waiting = spawn(log_after(go, log, 'W'));
        while (!go.armed())
            co_await yield_now();
        std::vector<join_handle<void>> crowd;
        for (int i = 0; i < count; ++i)
            crowd.push_back(spawn(log_once(log, 'n')));
        go.fire();
        co_await std::move(waiting);
        for (auto& h : crowd)
            co_await std::move(h);
    }());
    return log;
}

}  // namespace

TEST_CASE("deferred lane: a woken task runs before new tasks queued ahead of it") {
    runtime rt;
    CHECK(woken_among_new_tasks(rt, 50) == "W" + std::string(50, 'n'));
}

TEST_CASE("deferred lane: the fifo policy runs the woken task after the new ones") {
    runtime rt(with_lanes("fifo"));
    CHECK(woken_among_new_tasks(rt, 50) == std::string(50, 'n') + "W");
}

namespace {

/// Logs 'y' and yields, `rounds` times.
task<void> yielder(std::string& log, int rounds) {
    for (int i = 0; i < rounds; ++i) {
        log += 'y';
        co_await yield_now();
    }
}

}  // namespace

TEST_CASE("deferred lane: a yield lets the new tasks queued behind it run first") {
    runtime rt;
    std::string log;
    rt.block_on([&]() -> task<void> {
        auto y = spawn(yielder(log, 3));
        std::vector<join_handle<void>> fresh;
        for (int i = 0; i < 3; ++i)
            fresh.push_back(spawn(log_once(log, 'n')));
        co_await std::move(y);
        for (auto& h : fresh)
            co_await std::move(h);
    }());
    CHECK(log == "ynnnyy");
}

namespace {

/// Spawns three tasks that log 'c', wakes `helper` (waiting on `helper_go`),
/// and waits for `self_go`, which the helper fires; then logs 'P'.
task<void> spawner(std::string& log, test::manual_event& helper_go, test::manual_event& self_go,
                   std::vector<join_handle<void>>& children) {
    for (int i = 0; i < 3; ++i)
        children.push_back(spawn(log_once(log, 'c')));
    helper_go.fire();
    co_await self_go.wait();
    log += 'P';
}

/// Waits for `go`, logs 'H' and fires `next`.
task<void> helper(test::manual_event& go, test::manual_event& next, std::string& log) {
    co_await go.wait();
    log += 'H';
    next.fire();
}

/// The spawner's order: the helper is woken while the children wait for
/// their first poll, and wakes the spawner in turn.
std::string spawner_order(runtime& rt) {
    std::string log;
    test::manual_event helper_go, spawner_go;
    rt.block_on([&]() -> task<void> {
        auto h = spawn(helper(helper_go, spawner_go, log));
        while (!helper_go.armed())
            co_await yield_now();
        std::vector<join_handle<void>> children;
        co_await spawn(spawner(log, helper_go, spawner_go, children));
        co_await std::move(h);
        for (auto& c : children)
            co_await std::move(c);
    }());
    return log;
}

}  // namespace

TEST_CASE("deferred lane: a woken spawner waits behind the tasks it spawned") {
    // The helper's wake puts it first; the spawner's wake, which came after
    // a poll that spawned, queues it behind its children, as in a FIFO, so a
    // task woken again and again cannot spawn faster than its children run.
    runtime rt;
    CHECK(spawner_order(rt) == "HcccP");
}

TEST_CASE("deferred lane: the fifo policy runs the spawner's children first too") {
    runtime rt(with_lanes("fifo"));
    CHECK(spawner_order(rt) == "cccHP");
}

namespace {

/// Receives from `in` and sends to `out` `rounds` times, counting each
/// receive in `polls`: one of two tasks that wake each other.
task<void> ping_pong(sync::channel_receiver<int> in, sync::channel_sender<int> out, int rounds,
                     bool starts, long& polls) {
    if (starts) co_await out.send(0);
    for (int i = 0; i < rounds; ++i) {
        auto value = co_await in.recv();
        if (!value) co_return;
        ++polls;
        if (!co_await out.send(*value + 1)) co_return;
    }
}

/// Logs the ping-pong receives that happened before it ran.
task<void> note_polls(const long& polls, long& seen) {
    seen = polls;
    co_return;
}

/// How many ping-pong receives pass between a new task's spawn and its poll,
/// with `ready_streak_limit` set to `limit`.
long receives_before_new_task(std::int64_t limit) {
    runtime_config config;
    config.lanes.options["three_lane"]["ready_streak_limit"] = limit;
    runtime rt(config);
    long polls = 0;
    long seen = -1;
    long at_spawn = -1;
    rt.block_on([&]() -> task<void> {
        auto [to_b, b_in] = sync::make_channel<int>(1);
        auto [to_a, a_in] = sync::make_channel<int>(1);
        auto a = spawn(ping_pong(std::move(a_in), std::move(to_b), 20'000, true, polls));
        auto b = spawn(ping_pong(std::move(b_in), std::move(to_a), 20'000, false, polls));
        while (polls < 100)
            co_await yield_now();
        at_spawn = polls;
        auto late = spawn(note_polls(polls, seen));
        co_await std::move(late);
        co_await std::move(a);
        co_await std::move(b);
    }());
    REQUIRE(seen >= 0);
    return seen - at_spawn;
}

}  // namespace

TEST_CASE("deferred lane: two tasks waking each other let a new task run within the streak limit") {
    // Each receive is a woken task's poll. The root, which yields, is polled
    // between worker batches, so a few receives may pass before the spawn
    // reaches the lanes; ready_streak_limit bounds the rest.
    CHECK(receives_before_new_task(4) <= 4 + 1);
    // With a long streak the new task waits longer: the limit is what let it in.
    CHECK(receives_before_new_task(256) > 4 + 1);
}
