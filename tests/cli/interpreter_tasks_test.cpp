// Tasks in the interpreter: spawn, join and outcomes, cancel, join_all,
// race, region, structured ends, and how failures travel and are reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "rtkit/interp/interpreter.hpp"
#include "rtkit/script/parser.hpp"
#include "script_runner.hpp"

TEST_CASE("join gives the outcome - ok with the value the task returned") {
    const auto r = run_script(R"(let h = spawn worker {
    sleep 5ms
    return 6 * 7
}
let o = join h
print o o.status o.ok o.value o.message == ""
print h h.name h.finished
spawn nothing {
}
print join nothing
)");
    CHECK(r.err == "");
    CHECK(r.out == "ok(42) ok true 42 true\ntask worker worker true\nok(none)\n");
}

TEST_CASE("join of a failed task - error from fail - panicked from a runtime error") {
    const auto r = run_script(R"(let a = spawn quitter {
    fail "no more"
}
let b = spawn crasher {
    print 1 / 0
}
let oa = join a
let ob = join b
print oa.status oa.message
print ob.status ob.message
print (join a).ok
)");
    CHECK_FALSE(r.failed);  // the script looked at both outcomes
    CHECK(r.err == "");
    CHECK(r.out == "error no more\npanicked division by zero\nfalse\n");
}

TEST_CASE("a join statement fails the joiner like the task - reported once with the task") {
    const auto r = run_script(R"(let h = spawn crasher {
    print 1 % 0
}
join h
print "not reached"
)");
    CHECK(r.failed);
    CHECK(r.out == "");
    CHECK(r.err ==
          "i.rts:2:13: error: remainder by zero\n"
          "      print 1 % 0\n"
          "              ^\n"
          "i.rts:1:9: note: in task 'crasher', spawned here\n"
          "  let h = spawn crasher {\n"
          "          ^\n");
}

TEST_CASE("a failed task nobody joined fails its spawner at its end - never lost") {
    const auto r = run_script(R"(spawn outer {
    spawn inner {
        fail "inner gave up"
    }
    print "outer body done"
}
print "root body done"
)");
    CHECK(r.failed);
    CHECK(sorted_lines(r.out) == std::vector<std::string>{"outer body done", "root body done"});
    CHECK(r.err ==
          "i.rts:3:9: error: inner gave up\n"
          "          fail \"inner gave up\"\n"
          "          ^\n"
          "i.rts:2:5: note: in task 'inner', spawned here by task 'outer', and never joined: a "
          "failure nobody joins fails the scope that spawned the task\n"
          "      spawn inner {\n"
          "      ^\n");

    // Joined, the same failure says nothing of joins.
    const auto joined = run_script("let h = spawn t {\n    fail \"no\"\n}\njoin h\n");
    CHECK(joined.failed);
    CHECK(joined.err.find("i.rts:1:9: note: in task 't', spawned here\n") != std::string::npos);
}

TEST_CASE("a task ends after every task it spawned - spawned tasks see copies") {
    const auto r = run_script(R"(let total = 1
let go = channel(1)
spawn outer {
    spawn inner {
        recv go
        sleep 20ms
        total = total + 100
        print "inner done" total
    }
    total = total + 10
    print "outer body done" total
    send go true
}
join outer
print "outer joined, so inner is done too; total is still" total
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out ==
          "outer body done 11\ninner done 101\nouter joined, so inner is done too; total is "
          "still 1\n");
}

TEST_CASE("spawn of a function - and of a name in a loop - each its own task") {
    const auto r = run_script(R"(fn square(n) {
    return n * n
}
let sum = 0
let results = channel(3)
repeat 3 as i {
    send results spawn square(i + 1)
}
close results
let h = recv results
while h != none {
    sum = sum + (join h).value
    h = recv results
}
print "sum" sum
repeat 2 as i {
    spawn worker {
        print "worker" i
    }
    join worker
}
)");
    CHECK(r.err == "");
    CHECK(r.out == "sum 14\nworker 0\nworker 1\n");
}

TEST_CASE("spawn NAME declares NAME in the block - twice is an error before the task starts") {
    const auto r =
        run_script("spawn t {\n    print \"first\"\n}\nspawn t {\n    print \"second\"\n}\n");
    CHECK(r.failed);
    CHECK(r.out.find("second") == std::string::npos);
    CHECK(first_error(r).rfind("4:1: error: variable 't' is already declared in this block", 0) ==
          0);
}

TEST_CASE("cancel stops a task at its wait with the reason - cancelled is not a failure") {
    const auto r = run_script(R"(let started = channel(1)
let h = spawn sleeper {
    send started true
    sleep 10s
    print "never"
}
recv started
cancel h "no longer needed"
let o = join h
print o.status o.message
cancel h "again: nothing happens"
let plain = spawn other {
    sleep 10s
}
cancel plain
join plain
print (join plain).message
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "cancelled no longer needed\ncancelled\n");
}

// On one thread the region's failure comes before the task's first poll; on
// several, another worker may start the task first.
TEST_CASE("a task its region cancelled before it ran still has an outcome for its joiners" *
          doctest::test_suite("current_thread_order")) {
    const auto r = run_script(R"(let handles = channel(1)
let outer = spawn outer {
    region {
        send handles spawn never_runs {
            print "never"
        }
        fail "stopped before it ran"
    }
}
let h = recv handles
let o = join h
print o.status "-" o.message
print (join outer).message
)");
    CHECK(r.err == "");
    CHECK(r.out == "cancelled - cancelled before it started\nstopped before it ran\n");
}

TEST_CASE("cancelling a task cancels the tasks it spawned") {
    const auto r = run_script(R"(let ready = channel(1)
let h = spawn parent {
    spawn child {
        send ready true
        sleep 10s
        print "child never"
    }
    sleep 10s
}
recv ready
cancel h "stop the tree"
print (join h).status
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "cancelled\n");
}

TEST_CASE("a task cancelled before it ran ends cancelled - running nothing") {
    const auto r = run_script(R"(let h = spawn busy {
    loop {
    }
}
cancel h "enough"
print (join h).message
)");
    CHECK(r.err == "");
    CHECK(r.out == "enough\n");
}

TEST_CASE("join_all waits for all - gives the worst outcome - without arguments all unjoined") {
    const auto r = run_script(R"(let a = spawn one {
    sleep 10ms
}
let b = spawn two {
    fail "two failed"
}
let c = spawn three {
    print 1 / 0
}
let o = join_all(a, b)
print o.status o.message
let all = join_all
print all.status all.message
spawn four {
    sleep 1ms
}
spawn five {
}
print join_all
)");
    CHECK(r.err == "");
    CHECK(r.out == "error two failed\npanicked division by zero\nok(none)\n");
}

TEST_CASE("a join_all statement fails like its worst task") {
    const auto r = run_script(R"(spawn fine {
}
spawn bad {
    fail "bad one"
}
join_all
print "not reached"
)");
    CHECK(r.failed);
    CHECK(r.out == "");
    CHECK(first_error(r) == "4:5: error: bad one");
}

TEST_CASE("race gives the first outcome - the losers are cancelled before it returns") {
    const auto r = run_script(R"(let log = channel(10)
let o = race {
    sleep 10s
    send log "slow finished"
} or {
    sleep 5ms
    return "fast"
} or {
    recv log
}
print o.status o.value log.size
let failing = race {
    fail "first to fail"
} or {
    sleep 10s
}
print failing.status failing.message
)");
    CHECK(r.err == "");
    CHECK(r.out == "ok fast 0\nerror first to fail\n");
}

TEST_CASE("a race statement whose winner failed fails the script") {
    const auto r = run_script("race {\n    fail \"lost it\"\n} or {\n    sleep 10s\n}\n");
    CHECK(r.failed);
    CHECK(r.err.find("i.rts:2:5: error: lost it\n") == 0);
    CHECK(r.err.find("note: in task 'race block 1', spawned here") != std::string::npos);
}

TEST_CASE("region waits for the tasks spawned inside it") {
    const auto r = run_script(R"(let b_done = channel(1)
region {
    spawn a {
        recv b_done
        print "a done"
    }
    spawn b {
        sleep 10ms
        print "b done"
        send b_done true
    }
}
print "region done"
)");
    CHECK(r.err == "");
    CHECK(r.out == "b done\na done\nregion done\n");
}

TEST_CASE("a region whose body fails cancels its tasks - then fails") {
    const auto r = run_script(R"(let h = spawn job {
    region {
        spawn long {
            sleep 10s
            print "never"
        }
        yield
        fail "body gave up"
    }
}
let o = join h
print o.status o.message
)");
    CHECK(r.err == "");
    CHECK(r.out == "error body gave up\n");
}

TEST_CASE("a region whose task fails cancels the others at its end - the failure goes on") {
    const auto r = run_script(R"(let h = spawn job {
    region {
        spawn slow {
            sleep 10s
            print "never"
        }
        spawn bad {
            sleep 5ms
            fail "bad gave up"
        }
    }
    print "not reached"
}
let o = join h
print "job:" o.status o.message
)");
    CHECK(r.err == "");
    CHECK(r.out == "job: error bad gave up\n");
}

TEST_CASE("break - continue and return pass through a region") {
    const auto r = run_script(R"(fn first_over(limit) {
    let i = 0
    loop {
        region {
            i = i + 1
            if i > limit {
                return i
            }
        }
    }
}
print first_over(3)
)");
    CHECK(r.err == "");
    CHECK(r.out == "4\n");
}

TEST_CASE("a second failure in a scope is printed where it stops - the first goes on") {
    const auto r = run_script(R"(spawn a {
    fail "first"
}
spawn b {
    fail "second"
}
join a
)");
    CHECK(r.failed);
    CHECK(r.err.find("i.rts:2:5: error: first\n") != std::string::npos);
    CHECK(r.err.find("i.rts:5:5: error: second\n") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '^') == 4);  // each error and its task
}

// On several threads the first failure can cancel the other task before it
// ever ran; one thread runs both first.
TEST_CASE("errors in several tasks are each reported" *
          doctest::test_suite("current_thread_order")) {
    const auto r = run_script(R"(spawn a {
    print x
}
spawn b {
    print y
}
)");
    CHECK(r.failed);
    CHECK(r.err.find("2:11: error: unknown variable 'x'") != std::string::npos);
    CHECK(r.err.find("5:11: error: unknown variable 'y'") != std::string::npos);
}

// One thread runs ready tasks in turn; several run them at once.
TEST_CASE("yield lets the other ready tasks run" * doctest::test_suite("current_thread_order")) {
    const auto r = run_script(R"(spawn a {
    repeat 3 {
        print "a"
        yield
    }
}
spawn b {
    repeat 3 {
        print "b"
        yield
    }
}
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "a\nb\na\nb\na\nb\n");
}

TEST_CASE("a script whose tasks all wait for each other ends with a deadlock error") {
    const auto r = run_script(R"(let c = channel(1)
spawn worker {
    let d = channel(1)
    recv d
}
recv c
)");
    CHECK(r.failed);
    CHECK(r.err ==
          "error: deadlock: every task waits for another one (on a channel, a join, a semaphore "
          "or the end of the tasks it spawned), so none can go on\n"
          "i.rts:4:5: note: task 'worker' waits here\n"
          "      recv d\n"
          "      ^\n"
          "i.rts:6:1: note: the top level waits here\n"
          "  recv c\n"
          "  ^\n");

    // Two tasks joining each other through a channel of handles; a full channel; a semaphore.
    const std::string stuck[] = {
        "let handles = channel(2)\nlet a = spawn a {\n    join recv handles\n}\nsend handles "
        "a\njoin a\n",
        "let c = channel(1)\nsend c 1\nsend c 2\n",
        "let m = semaphore(1)\nacquire m {\n    acquire m {\n    }\n}\n",
        "let c = channel(1)\nlet o = race {\n    recv c\n} or {\n    recv c\n}\n",
    };
    for (const std::string& text : stuck) {
        CAPTURE(text);
        const auto s = run_script(text);
        CHECK(s.failed);
        CHECK(s.err.rfind("error: deadlock: ", 0) == 0);
    }
}

TEST_CASE("a shorter deadlock watch period reports a deadlock before a time limit") {
    using namespace std::chrono_literals;
    // With the default period (two looks 100 ms apart) the time limit would
    // end this script first.
    rtkit::interp::interpreter_options options;
    options.max_time = 150ms;
    options.deadlock_watch_period = 5ms;
    const auto r = run_script("let c = channel(1)\nrecv c\n", options);
    CHECK(r.failed);
    CHECK(r.err.rfind("error: deadlock: ", 0) == 0);
}

TEST_CASE("tasks woken together and draining slowly are not a deadlock") {
    using namespace std::chrono_literals;
    // Closing the channel wakes every receiver at once; they run one after
    // the other, and none starts a statement as it leaves its recv. A watch
    // that looks every millisecond sees the drain many times.
    rtkit::interp::interpreter_options options;
    options.deadlock_watch_period = 1ms;
    const auto r = run_script(R"(let c = channel(1)
repeat 10000 {
    spawn receiver {
        recv c
    }
}
sleep 10ms
close c
join_all
print "drained"
)",
                              options);
    CHECK(r.err == "");
    CHECK(r.out == "drained\n");
}

TEST_CASE("a deadlock watch period of zero is refused") {
    const auto program = rtkit::script::parse("i.rts", "print 1\n");
    std::ostringstream out, err;
    rtkit::interp::interpreter_options options;
    options.deadlock_watch_period = rtkit::duration::zero();
    CHECK_THROWS_WITH_AS(rtkit::interp::interpreter(program, out, err, options),
                         "interpreter_options::deadlock_watch_period must be positive, not 0ns",
                         std::invalid_argument);
}

TEST_CASE("waits that a timer or a socket can end are not a deadlock") {
    const auto r = run_script(R"(let c = channel(1)
timeout 400ms {
    recv c
} else {
    print "the timeout ended the wait"
}
spawn sleeper {
    sleep 400ms
    send c "woken"
}
print recv c
let l = listen "127.0.0.1:0"
spawn late_client {
    sleep 400ms
    let s = connect l.address
    write s "hello"
}
let conn = accept l
print read conn
)");
    CHECK(r.err == "");
    CHECK(r.out == "the timeout ended the wait\nwoken\nhello\n");
}

TEST_CASE("a deadlock report groups the tasks that wait at one place - and caps the places") {
    const auto r = run_script(R"(let c = channel(1)
repeat 2000 {
    spawn receiver {
        recv c
    }
}
join_all
)");
    CHECK(r.failed);
    CHECK(r.err ==
          "error: deadlock: every task waits for another one (on a channel, a join, a semaphore "
          "or the end of the tasks it spawned), so none can go on\n"
          "i.rts:4:9: note: 2000 tasks 'receiver' wait here\n"
          "          recv c\n"
          "          ^\n"
          "i.rts:7:1: note: the top level waits here\n"
          "  join_all\n"
          "  ^\n");

    // Tasks at more places than a report lists: the first places in the
    // script, then one line for the rest.
    std::string text = "let c = channel(1)\n";
    for (int i = 0; i < 30; ++i)
        text += "spawn w" + std::to_string(i) + " {\n    recv c\n}\n";
    text += "join_all\n";
    const auto places = run_script(text);
    CHECK(places.failed);
    CHECK(std::count(places.err.begin(), places.err.end(), '\n') == 1 + 3 * 16 + 1);
    CHECK(places.err.find("i.rts:3:5: note: task 'w0' waits here\n") != std::string::npos);
    CHECK(places.err.find("i.rts:48:5: note: task 'w15' waits here\n") != std::string::npos);
    CHECK(places.err.find("'w16'") == std::string::npos);
    CHECK(places.err.substr(places.err.rfind('\n', places.err.size() - 2) + 1) ==
          "note: and 15 more tasks wait at 15 more places\n");
}

namespace {

rtkit::interp::interpreter_options task_limit(std::uint64_t tasks) {
    rtkit::interp::interpreter_options options;
    options.max_tasks = tasks;
    return options;
}

constexpr const char* too_many_tasks =
    "error: the script has 300 tasks alive, its limit: a spawn that never ends, such as a "
    "function that spawns itself? (rtctl run --max-tasks N raises the limit, 0 lifts it)";

}  // namespace

TEST_CASE("spawn recursion without an end stops at the limit on live tasks") {
    // A chain: each task spawns the next, then waits for ever.
    const auto chain =
        run_script("fn f() {\n    spawn f()\n    sleep 1000s\n}\nf()\n", task_limit(300));
    CHECK(chain.failed);
    CHECK(first_error(chain) == "2:5: " + std::string(too_many_tasks));
    CHECK(chain.err.find("note: in task 'f', spawned here by task 'f'") != std::string::npos);
    CHECK(std::count(chain.err.begin(), chain.err.end(), '\n') == 6);  // reported once

    // A tree: each task spawns two.
    const auto tree =
        run_script("fn f() {\n    spawn f()\n    spawn f()\n}\nf()\n", task_limit(300));
    CHECK(tree.failed);
    CHECK(first_error(tree).find(too_many_tasks) != std::string::npos);

    // Tasks that end make room: 1,000 tasks in a row, never 300 at once.
    const auto in_turn =
        run_script("repeat 1000 {\n    let h = spawn t {\n    }\n    join h\n}\nprint \"done\"\n",
                   task_limit(300));
    CHECK_FALSE(in_turn.failed);
    CHECK(in_turn.out == "done\n");
    // 0 lifts the limit.
    CHECK(run_script("repeat 1000 {\n    spawn t {\n        sleep 1ms\n    }\n}\n", task_limit(0))
              .err == "");
}
