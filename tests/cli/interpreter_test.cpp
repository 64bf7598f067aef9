// The interpreter in-process: values, variables, control flow, functions,
// errors, the step budget and the time limit.
#include <doctest/doctest.h>

#include <algorithm>

#include "script_runner.hpp"

TEST_CASE("print joins its arguments with single spaces - an empty print is an empty line") {
    const auto r = run_script("print \"a\" 1 + 2 \"b\\tc\" 2s true none\nprint\nprint \"x\"\n");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "a 3 b\tc 2s true none\n\nx\n");
}

TEST_CASE("let - assignment - scopes and shadowing") {
    const auto r = run_script(R"(let x = 1
if true {
    let x = 10
    x = x + 1
    print "inner" x
}
x = x + 1
print "outer" x
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "inner 11\nouter 2\n");
}

TEST_CASE("if - else if - else take the first true branch") {
    const auto r = run_script(R"(repeat 4 as i {
    if i == 0 {
        print "zero"
    } else if i < 2 {
        print "one"
    } else if i == 2 {
        print "two"
    } else {
        print "many"
    }
}
)");
    CHECK(r.out == "zero\none\ntwo\nmany\n");
}

TEST_CASE("while - loop - break - continue - repeat as") {
    const auto r = run_script(R"(let n = 0
while n < 3 {
    n = n + 1
}
print "while" n
let i = 0
loop {
    i = i + 1
    if i % 2 == 0 {
        continue
    }
    if i > 6 {
        break
    }
    print "odd" i
}
repeat 3 as k {
    print "k" k
}
repeat 0 {
    print "never"
}
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "while 3\nodd 1\nodd 3\nodd 5\nk 0\nk 1\nk 2\n");
}

TEST_CASE("break and continue leave the innermost loop only") {
    const auto r = run_script(R"(repeat 2 as outer {
    repeat 5 as inner {
        if inner == 2 {
            break
        }
        print outer inner
    }
}
)");
    CHECK(r.out == "0 0\n0 1\n1 0\n1 1\n");
}

TEST_CASE("functions: arguments - return - recursion - declared after use") {
    const auto r = run_script(R"(print fib(15) greet("you") nothing()
fn fib(n) {
    if n < 2 {
        return n
    }
    return fib(n - 1) + fib(n - 2)
}
fn greet(who) {
    return "hello " + who
}
fn nothing() {
}
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "610 hello you none\n");
}

TEST_CASE("a function sees only its parameters - and return leaves loops") {
    const auto r = run_script(R"(let secret = 1
fn find(limit) {
    let i = 0
    loop {
        if i * i > limit {
            return i
        }
        i = i + 1
    }
}
fn peek() {
    return secret
}
print find(50)
print peek()
)");
    CHECK(r.failed);
    CHECK(r.out == "8\n");
    CHECK(first_error(r) == "12:12: error: unknown variable 'secret'");
}

TEST_CASE("recursion without an end is an error - not a crash") {
    const auto r = run_script("fn down(n) {\n    return down(n + 1)\n}\nprint down(0)\n");
    CHECK(r.failed);
    CHECK(first_error(r) ==
          "2:12: error: calls are nested too deeply (the limit is 200): a recursion without an "
          "end?");
}

TEST_CASE("assert passes quietly - fails with its message and position") {
    const auto r = run_script("assert 1 + 1 == 2\nassert 2 > 3 \"two is not \" + 3\n");
    CHECK(r.failed);
    CHECK(first_error(r) == "2:1: error: assertion failed: two is not 3");
    CHECK(first_error(run_script("assert false\n")) == "1:1: error: assertion failed");
    CHECK(first_error(run_script("assert 1\n")) ==
          "1:8: error: assert needs a boolean, not an integer (compare it: x != 0, s != \"\", v "
          "!= none)");
}

TEST_CASE("fail ends the script with the message - exit as a failure") {
    const auto r = run_script("print \"before\"\nfail \"gave up at \" + 3\nprint \"after\"\n");
    CHECK(r.failed);
    CHECK(r.out == "before\n");
    CHECK(r.err == "i.rts:2:1: error: gave up at 3\n  fail \"gave up at \" + 3\n  ^\n");
}

TEST_CASE("now is the time since the script started on the runtime clock") {
    const auto r = run_script(R"(let start = now
sleep 20ms
let waited = now - start
assert waited >= 20ms
assert start >= 0ms
print "ok"
)");
    CHECK(r.err == "");
    CHECK(r.out == "ok\n");
}

TEST_CASE("runtime errors in statements carry their position") {
    CHECK(first_error(run_script("sleep 5\n")) ==
          "1:7: error: sleep needs a duration such as 10ms, not an integer");
    CHECK(first_error(run_script("sleep 0ms - 1ms\n")) ==
          "1:11: error: sleep needs a duration of zero or more, not -1ms");
    CHECK(first_error(run_script("repeat \"x\" {\n}\n")) ==
          "1:8: error: repeat needs an integer, not a string");
    CHECK(first_error(run_script("repeat -1 {\n}\n")) ==
          "1:8: error: repeat needs a count of zero or more, not -1");
    CHECK(first_error(run_script("let a = 1\nlet a = 2\n"))
              .rfind("2:1: error: variable 'a' is already declared in this block", 0) == 0);
    CHECK(first_error(run_script("b = 1\n")) == "1:1: error: unknown variable 'b'");
    CHECK(first_error(run_script("if 1 {\n}\n")) ==
          "1:4: error: if needs a boolean, not an integer (compare it: x != 0, s != \"\", v != "
          "none)");
    CHECK(first_error(run_script("while \"x\" {\n}\n"))
              .rfind("1:7: error: while needs a boolean", 0) == 0);
    CHECK(first_error(run_script("join 3\n")) == "1:6: error: join needs a task, not an integer");
    CHECK(first_error(run_script("let c = channel(0)\n")) ==
          "1:17: error: channel needs a size from 1 to 1048576, not 0");
    CHECK(first_error(run_script("let x = none.value\n")) ==
          "1:13: error: none has no field 'value'");
}

TEST_CASE("the step budget ends a loop that never waits - once - with the task named") {
    rtkit::interp::interpreter_options small;
    small.max_steps = 10'000;
    const auto r = run_script("spawn spinner {\n    loop {\n    }\n}\n", small);
    CHECK(r.failed);
    CHECK(r.err ==
          "i.rts:2:5: error: the script used up its budget of 10000 steps (statements and loop "
          "rounds): a loop that never waits? (rtctl run --max-steps N raises the budget, 0 lifts "
          "it)\n"
          "      loop {\n"
          "      ^\n"
          "i.rts:1:1: note: in task 'spinner', spawned here\n"
          "  spawn spinner {\n"
          "  ^\n");

    // Even while another task waits for ever: the budget stops the whole script.
    const auto waiting =
        run_script("spawn spinner {\n    loop {\n    }\n}\nlet c = channel(1)\nrecv c\n", small);
    CHECK(waiting.failed);
    CHECK(std::count(waiting.err.begin(), waiting.err.end(), '\n') == 6);

    rtkit::interp::interpreter_options unlimited;
    unlimited.max_steps = 0;
    CHECK(run_script("repeat 20000 {\n}\nprint \"done\"\n", unlimited).out == "done\n");
}

namespace {

rtkit::interp::interpreter_options time_limit(rtkit::duration limit) {
    rtkit::interp::interpreter_options options;
    options.max_time = limit;
    return options;
}

constexpr const char* out_of_time =
    "error: the script ran longer than its time limit of 100ms (rtctl run --max-time D raises "
    "it): every task is cancelled";

}  // namespace

TEST_CASE("the time limit stops tasks that wait for ever - with a note where each waits") {
    using namespace std::chrono_literals;
    const auto r = run_script(
        "spawn sleeper {\n    sleep 1000s\n}\nlet c = channel(1)\ntimeout 1000s {\n    recv c\n}\n",
        time_limit(100ms));
    CHECK(r.failed);
    CHECK(r.err == std::string(out_of_time) +
                       "\n"
                       "i.rts:2:5: note: task 'sleeper' waits here\n"
                       "      sleep 1000s\n"
                       "      ^\n"
                       "i.rts:6:5: note: the top level waits here\n"
                       "      recv c\n"
                       "      ^\n");
}

TEST_CASE("the time limit stops a loop that never waits - at its statement") {
    using namespace std::chrono_literals;
    rtkit::interp::interpreter_options options = time_limit(100ms);
    options.max_steps = 0;
    const auto r = run_script("let n = 0\nloop {\n    n = n + 1\n}\n", options);
    CHECK(r.failed);
    CHECK(r.err.rfind("i.rts:", 0) == 0);
    CHECK(first_error(r).find(out_of_time) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 3);  // the error, the line, a caret
}

TEST_CASE("the time limit ends a spin that holds the worker") {
    using namespace std::chrono_literals;
    const auto r = run_script("print \"before\"\nspin 1000s\nprint \"after\"\n", time_limit(100ms));
    CHECK(r.failed);
    CHECK(r.out == "before\n");
    CHECK(r.err == "i.rts:2:1: " + std::string(out_of_time) + "\n  spin 1000s\n  ^\n");
}

TEST_CASE("a script that ends within its time limit runs as without one") {
    using namespace std::chrono_literals;
    const auto r = run_script("sleep 1ms\nprint \"done\"\n", time_limit(60s));
    CHECK_FALSE(r.failed);
    CHECK(r.out == "done\n");
    CHECK(r.err == "");
}

TEST_CASE("a time limit report groups the tasks that wait at one place") {
    using namespace std::chrono_literals;
    // 20 tasks of one name at one statement share a note. Each says it is
    // there before the top level goes to wait, so that all are counted.
    const auto r = run_script(R"(let ready = channel(20)
repeat 20 {
    spawn sleeper {
        send ready true
        sleep 1000s
    }
}
repeat 20 {
    recv ready
}
sleep 1000s
)",
                              time_limit(100ms));
    CHECK(r.failed);
    CHECK(r.err == std::string(out_of_time) +
                       "\n"
                       "i.rts:5:9: note: 20 tasks 'sleeper' wait here\n"
                       "          sleep 1000s\n"
                       "          ^\n"
                       "i.rts:11:1: note: the top level waits here\n"
                       "  sleep 1000s\n"
                       "  ^\n");
}
