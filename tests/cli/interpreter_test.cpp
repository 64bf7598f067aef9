// The interpreter in-process, on a real runtime with the built-in plugins.
#include "rtkit/interp/interpreter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <rtkit/runtime.hpp>
#include <sstream>

#include "rtkit/interp/task_failed.hpp"
#include "rtkit/script/parser.hpp"

namespace {

struct run_result {
    bool failed = false;
    std::string out;
    std::string err;
};

run_result run_script(std::string text) {
    const auto program = rtkit::script::parse("i.rts", std::move(text));
    std::ostringstream out, err;
    rtkit::interp::interpreter interpreter(program, out, err);
    run_result result;
    {
        rtkit::runtime runtime;
        try {
            runtime.block_on(interpreter.run());
        } catch (const rtkit::interp::task_failed&) {
            result.failed = true;
        }
    }
    CHECK(result.failed == (interpreter.errors_reported() > 0));
    result.out = out.str();
    result.err = err.str();
    return result;
}

/// The first line of the error output, without the file name.
std::string first_error(const run_result& r) {
    const auto line = r.err.substr(0, r.err.find('\n'));
    return line.substr(line.find(':') + 1);
}

}  // namespace

TEST_CASE("print joins its arguments with single spaces - an empty print is an empty line") {
    const auto r = run_script("print \"a\" 1 + 2 \"b\\tc\" 2s\nprint\nprint \"x\"\n");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "a 3 b\tc 2s\n\nx\n");
}

TEST_CASE("a name can be reused - join takes the most recent - the rest are joined at the end") {
    const auto r = run_script(R"(
let i = 0
repeat 3 {
    i = i + 1
    spawn w {
        sleep 30ms * (4 - i)
        print "w" i
    }
}
join w
print "joined the last w"
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "w 3\njoined the last w\nw 2\nw 1\n");
}

TEST_CASE("tasks spawn tasks - each waits for its own") {
    const auto r = run_script(R"(
spawn outer {
    spawn inner {
        sleep 20ms
        print "inner done"
    }
    print "outer body done"
}
join outer
print "outer joined, so inner is done too"
)");
    CHECK_FALSE(r.failed);
    CHECK(r.out == "outer body done\ninner done\nouter joined, so inner is done too\n");
}

TEST_CASE("yield lets the other ready tasks run") {
    const auto r = run_script(R"(
spawn a {
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

TEST_CASE("runtime errors in statements carry their position") {
    CHECK(first_error(run_script("sleep 5\n")) ==
          "1:7: error: sleep needs a duration such as 10ms, not an integer");
    CHECK(first_error(run_script("sleep 0ms - 1ms\n")) ==
          "1:11: error: sleep needs a duration of zero or more, not -1ms");
    CHECK(first_error(run_script("repeat \"x\" {\n}\n")) ==
          "1:8: error: repeat needs an integer count, not a string");
    CHECK(first_error(run_script("repeat -1 {\n}\n")) ==
          "1:8: error: repeat needs a count of zero or more, not -1");
    CHECK(first_error(run_script("let a = 1\nlet a = 2\n"))
              .rfind("2:1: error: variable 'a' is already declared in this block", 0) == 0);
    CHECK(first_error(run_script("b = 1\n")) == "1:1: error: unknown variable 'b'");
    CHECK(first_error(run_script("spawn t {\n}\njoin t\njoin t\n")) ==
          "4:1: error: no running task named 't' to join (this task's unjoined tasks: none)");
}

TEST_CASE("a failing child fails its joiner once - and the script stops there") {
    const auto r = run_script(R"(
spawn bad {
    print 1 % 0
}
join bad
print "not reached"
)");
    CHECK(r.failed);
    CHECK(r.out == "");
    CHECK(first_error(r) == "3:13: error: remainder by zero");
    // Reported once, by the task that failed: one error line, one source line, one caret.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 3);
}

TEST_CASE("errors in several tasks are each reported") {
    const auto r = run_script(R"(
spawn a {
    print x
}
spawn b {
    sleep 5ms
    print y
}
)");
    CHECK(r.failed);
    CHECK(r.err.find("3:11: error: unknown variable 'x'") != std::string::npos);
    CHECK(r.err.find("7:11: error: unknown variable 'y'") != std::string::npos);
}

TEST_CASE("a block's variables end with it - a spawned task sees its parent's block") {
    const auto r = run_script(R"(
repeat 1 {
    let inner = 5
    spawn t {
        print inner
    }
}
print inner
)");
    CHECK(r.failed);
    CHECK(r.out == "5\n");
    CHECK(first_error(r) == "8:7: error: unknown variable 'inner'");
}
