// rtctl check's name resolution without running: every unknown variable and
// every name declared twice in a block, scoped as the interpreter scopes them.
#include "rtkit/script/name_check.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rtkit/script/parser.hpp"

namespace {

/// Each error of `text` as "LINE:COLUMN: MESSAGE".
std::vector<std::string> name_errors(std::string text) {
    const rtkit::script::program p = rtkit::script::parse("n.rts", std::move(text));
    std::vector<std::string> found;
    for (const rtkit::script::script_error& e : rtkit::script::check_names(p))
        found.push_back(std::to_string(e.where().line) + ':' + std::to_string(e.where().column) +
                        ": " + e.message());
    return found;
}

using errors = std::vector<std::string>;

}  // namespace

TEST_CASE("check finds a variable used where none is declared - with the closest name") {
    CHECK(name_errors("let count = 1\nprint cuont\n") ==
          errors{"2:7: unknown variable 'cuont'; did you mean 'count'?"});
    CHECK(name_errors("x = 1\n") == errors{"1:1: unknown variable 'x'"});
    // Used before its let, or after the block that declared it ended.
    CHECK(name_errors("print a\nlet a = 1\n") == errors{"1:7: unknown variable 'a'"});
    CHECK(name_errors("if true {\n    let b = 1\n}\nprint b\n") ==
          errors{"4:7: unknown variable 'b'"});
    // `let x = x` reads the x around it, not its own.
    CHECK(name_errors("let x = x + 1\n") == errors{"1:9: unknown variable 'x'"});
    CHECK(name_errors("let x = 1\nif true {\n    let x = x + 1\n}\n").empty());
}

TEST_CASE("check finds a name declared twice in one block - an inner block may shadow it") {
    CHECK(name_errors("let x = 1\nlet x = 2\n") ==
          errors{"2:1: variable 'x' is already declared in this block at 1:1 (assign it with 'x "
                 "= ...')"});
    CHECK(name_errors("let w = 1\nspawn w {\n}\n") ==
          errors{"2:1: variable 'w' is already declared in this block at 1:1 (assign it with 'w "
                 "= ...')"});
    CHECK(name_errors("let x = 1\nloop {\n    let x = 2\n    let y = x\n    break\n}\n").empty());
    // A loop's body is a new block each round.
    CHECK(name_errors("repeat 3 as i {\n    let i = i * 2\n    let j = i\n}\n").empty());
}

TEST_CASE("check scopes tasks and functions as the interpreter does") {
    // A spawned block or race block sees what was visible where it started,
    // and a spawned block its own handle.
    CHECK(name_errors("let c = channel(1)\nspawn t {\n    send c t\n}\nlet later = 1\n"
                      "let o = race {\n    recv c\n} or {\n    print later\n}\n")
              .empty());
    CHECK(name_errors("spawn t {\n    print later\n}\nlet later = 1\n") ==
          errors{"2:11: unknown variable 'later'"});
    // A function sees its parameters only; its errors come in script order.
    CHECK(name_errors("let top = 1\nfn f(a) {\n    print a top\n}\nprint nope\nspawn f(top)\n") ==
          errors{"3:13: unknown variable 'top'", "5:7: unknown variable 'nope'"});
    // Every kind of expression and statement is walked.
    CHECK(name_errors("let s = semaphore(1)\nacquire s {\n    timeout 1s {\n        region {\n"
                      "            cancel (join_all(u)) v.x\n        }\n    } else {\n"
                      "        assert -w\n    }\n}\n")
              .size() == 3);
}
