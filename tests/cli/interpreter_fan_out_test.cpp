// Broadcasts, watches and intervals in the interpreter: rtkit::sync's
// broadcast and watch channels and rtkit::interval underneath.
#include <doctest/doctest.h>

#include <chrono>

#include "parse_helpers.hpp"
#include "script_runner.hpp"

TEST_CASE("broadcast: every subscription gets every value in order - none once closed") {
    const auto r = run_script(R"(let news = broadcast(4)
print news news.capacity news.closed
let a = subscribe news
let b = subscribe news
let reader = spawn reader {
    let got = ""
    let v = recv a
    while v != none {
        got = got + v + " "
        v = recv a
    }
    return got
}
repeat 3 as i {
    send news i * 10
}
close news
print "b:" (recv b) (recv b) (recv b) (recv b)
print "a:" (join reader).value
print news.closed a.missed
)");
    CHECK(r.err == "");
    CHECK(r.out == "broadcast(4) 4 false\nb: 0 10 20 none\na: 0 10 20 \ntrue 0\n");
}

TEST_CASE(
    "broadcast: a subscription that fell behind skips to the oldest value held - .missed says how "
    "many") {
    const auto r = run_script(R"(let b = broadcast(2)
let s = subscribe b
repeat 5 as i {
    send b i
}
print recv s s.missed
print recv s s.missed
send b 5
print recv s s.missed
)");
    CHECK(r.err == "");
    CHECK(r.out == "3 3\n4 3\n5 3\n");
}

TEST_CASE(
    "broadcast: values sent before a subscription are not its - sent to nobody they go nowhere") {
    const auto r = run_script(R"(let b = broadcast(2)
send b "lost"
let s = subscribe b
send b "kept"
close b
print recv s recv s
let late = subscribe b
print recv late
)");
    CHECK(r.err == "");
    CHECK(r.out == "kept none\nnone\n");
}

TEST_CASE("watch: recv waits for a change and gives the latest value - none once closed") {
    const auto r = run_script(R"(let config = watch("v1")
print config config.value
let w = subscribe config
let follower = spawn follower {
    return recv w
}
yield
send config "v2"
print (join follower).value
send config "v3"
send config "v4"
print recv w config.value
close config
print recv w config.closed config.value
)");
    CHECK(r.err == "");
    CHECK(r.out == "watch v1\nv2\nv4 v4\nnone true v4\n");
}

TEST_CASE("interval: ticks a period apart - each gives when it was due") {
    const auto r = run_script(R"(let every = interval(2ms)
print every every.period
let first = tick every
let last = first
repeat 3 {
    last = tick every
}
print last - first
assert now >= last
let skipping = interval(1ms, "skip")
let delaying = interval(1ms, "delay")
tick skipping
tick delaying
)");
    CHECK(r.err == "");
    CHECK(r.out == "interval(2ms) 2ms\n6ms\n");
}

TEST_CASE("a recv on a subscription or a tick cancelled while it waits takes nothing") {
    const auto r = run_script(R"(let b = broadcast(2)
let s = subscribe b
let waiter = spawn waiter {
    recv s
}
let ticker = spawn ticker {
    let hourly = interval(3600s)
    tick hourly
    tick hourly
}
yield
cancel waiter "enough"
cancel ticker "enough"
print (join waiter).status (join ticker).status
send b 1
print recv s
)");
    CHECK(r.err == "");
    CHECK(r.out == "cancelled cancelled\n1\n");
}

TEST_CASE("a task waiting on a subscription nobody can send to is a deadlock") {
    using namespace std::chrono_literals;
    rtkit::interp::interpreter_options options;
    options.deadlock_watch_period = 5ms;
    const auto r = run_script("let b = broadcast(1)\nlet s = subscribe b\nrecv s\n", options);
    CHECK(r.failed);
    CHECK(r.err.rfind("error: deadlock: ", 0) == 0);
}

TEST_CASE("a broadcast or watch that carries itself is freed once the script ended") {
    // Run under ASan, a leak here fails the test.
    const auto r = run_script(R"(let b = broadcast(2)
let s = subscribe b
send b b
send b s
let w = watch(none)
send w w
let ws = subscribe w
)");
    CHECK(r.err == "");
}

TEST_CASE("broadcast - watch and interval mistakes are errors at their place") {
    struct mistake {
        const char* text;
        const char* error;
    };
    const mistake mistakes[] = {
        {"let w = watch(1)\nprint recv w\n",
         "2:12: error: recv needs a channel, a subscription or a signal stream, not a watch"},
        {"let b = broadcast(1)\nclose b\nsend b 1\n", "3:1: error: send on a closed broadcast"},
        {"let w = watch(1)\nclose w\nclose w\n", "3:1: error: the watch is already closed"},
        {"let b = broadcast(0)\n", "1:19: error: broadcast needs a size from 1 to 1048576, not 0"},
        {"let i = interval(0ms)\n", "1:18: error: interval needs a period above zero"},
        {"let i = interval(1ms, \"often\")\n",
         "1:23: error: interval's second argument says what to do about ticks taken late: "
         "\"burst\", \"delay\" or \"skip\", not \"often\""},
        {"tick 5\n", "1:6: error: tick needs an interval, not an integer"},
        {"let c = channel(1)\nprint subscribe c\n",
         "2:17: error: subscribe needs a broadcast or a watch, not a channel"},
    };
    for (const mistake& m : mistakes) {
        CAPTURE(m.text);
        const auto r = run_script(m.text);
        CHECK(r.failed);
        CHECK(first_error(r) == m.error);
    }
}

TEST_CASE("broadcast - watch and interval take their arguments - tick and subscribe an operand") {
    CHECK(syntax_error_of("let w = watch()\n") ==
          "1:9: 'watch' takes its first value, e.g. watch(0)");
    CHECK(syntax_error_of("let b = broadcast(1, 2)\n") ==
          "1:9: 'broadcast' takes its capacity, e.g. broadcast(16)");
    CHECK(syntax_error_of("let i = interval(1ms, \"skip\", 2)\n") ==
          "1:9: 'interval' takes its period and, if ticks taken late should not come in a burst, "
          "\"delay\" or \"skip\", e.g. interval(100ms) or interval(100ms, \"skip\")");
    CHECK(syntax_error_of("tick\n") == "1:5: expected an operand after 'tick', found end of line");
    CHECK(syntax_error_of("let tick = 1\n") ==
          "1:5: 'tick' is a keyword and cannot be used as a name");
    CHECK(tree_of("tick every\nlet s = subscribe b\nlet i = interval(1ms, \"skip\")\n") ==
          "(tick every)\n(let s (subscribe b))\n(let i (interval 1ms \"skip\"))\n");
}
