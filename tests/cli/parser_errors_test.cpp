// One check per kind of syntax error: each names the problem at the
// offending token (line:column) and says what was expected.
#include <doctest/doctest.h>

#include "parse_helpers.hpp"

TEST_CASE("syntax errors point at the offending token") {
    CHECK(syntax_error_of("let = 3\n") == "1:5: expected a name after 'let', found '='");
    CHECK(syntax_error_of("let x 3\n") == "1:7: expected '=' after the name in 'let', found '3'");
    CHECK(syntax_error_of("print 1 +\n") == "1:10: expected an expression, found end of line");
    CHECK(syntax_error_of("sleep 10ms yield\n") ==
          "1:12: expected end of line after 'sleep' (one statement per line), found 'yield'");
    CHECK(syntax_error_of("print (1 + 2\n") ==
          "1:13: expected ')' to close the '(' at 1:7, found end of line");
    CHECK(syntax_error_of("let spawn = 1\n") ==
          "1:5: 'spawn' is a keyword and cannot be used as a name");
    CHECK(syntax_error_of("x\n") ==
          "1:1: expected a statement, found the name 'x' (assign with 'x = ...', declare with "
          "'let x = ...')");
    CHECK(syntax_error_of("42\n") == "1:1: expected a statement, found '42'");
    CHECK(syntax_error_of("true\n") == "1:1: expected a statement, found 'true'");
    CHECK(syntax_error_of("else {\n}\n") == "1:1: expected a statement, found 'else'");
}

TEST_CASE("blocks: braces end and start lines - and must balance") {
    CHECK(syntax_error_of("spawn a { print 1 }\n") ==
          "1:11: expected end of line after '{' (a block's statements start on the next line), "
          "found 'print'");
    CHECK(syntax_error_of("repeat 2\n{\n}\n") ==
          "1:9: expected '{' to open the block of 'repeat', found end of line");
    CHECK(syntax_error_of("spawn a {\n  yield\n") ==
          "1:9: this '{' is never closed (expected '}' on a line of its own)");
    CHECK(syntax_error_of("yield\n}\n") == "2:1: unmatched '}' (no block is open here)");
    CHECK(syntax_error_of("repeat 2 {\n} yield\n") ==
          "2:3: expected end of line after '}' (one statement per line), found 'yield'");
    CHECK(syntax_error_of("if x {\n}\nelse {\n}\n") == "3:1: expected a statement, found 'else'");
    CHECK(syntax_error_of("if x {\n} else print 1\n") ==
          "2:8: expected '{' to open the block of 'else', found 'print'");
    CHECK(syntax_error_of("timeout 1s {\n} else if x {\n}\n") ==
          "2:8: expected '{' to open the block of 'else', found 'if'");
    CHECK(syntax_error_of("if x = 1 {\n}\n") ==
          "1:6: expected '{' to open the block of 'if', found '=' (to compare, write ==; = only "
          "assigns)");
    CHECK(syntax_error_of("while x = 1 {\n}\n") ==
          "1:9: expected '{' to open the block of 'while', found '=' (to compare, write ==; = "
          "only assigns)");
}

TEST_CASE("loops: break and continue only inside one - of the same task or function") {
    CHECK(syntax_error_of("break\n") ==
          "1:1: 'break' outside a loop (loops are while, loop and repeat; a task's or function's "
          "body starts outside any loop)");
    CHECK(syntax_error_of("if x {\n  continue\n}\n").rfind("2:3: 'continue' outside a loop", 0) ==
          0);
    CHECK(syntax_error_of("loop {\n  spawn t {\n    break\n  }\n}\n")
              .rfind("3:5: 'break' outside a loop", 0) == 0);
    CHECK(syntax_error_of("loop {\n  let r = race {\n    break\n  } or {\n  }\n}\n")
              .rfind("3:5: 'break' outside a loop", 0) == 0);
    CHECK(syntax_error_of("fn f() {\n  break\n}\n").rfind("2:3: 'break' outside a loop", 0) == 0);
    // Inside a loop, through a region, a timeout or an acquire block: fine.
    CHECK(syntax_error_of("loop {\n  region {\n    timeout 1s {\n      break\n    }\n  }\n}\n")
              .empty());
}

TEST_CASE("functions: declared once at the top level - called with the right arguments") {
    CHECK(syntax_error_of("if x {\n  fn f() {\n  }\n}\n") ==
          "2:3: functions are declared at the top level of the script, not inside a block");
    CHECK(syntax_error_of("fn f() {\n}\nfn f() {\n}\n") ==
          "3:1: function 'f' is already declared at 1:1");
    CHECK(syntax_error_of("fn f(a, a) {\n}\n") == "1:9: parameter 'a' is declared twice");
    CHECK(syntax_error_of("fn f(a b) {\n}\n") == "1:8: expected ',' between parameters, found 'b'");
    CHECK(syntax_error_of("fn worker() {\n}\nwrker()\n") ==
          "3:1: unknown function 'wrker'; did you mean 'worker'?");
    CHECK(syntax_error_of("let x = g(1)\n") == "1:9: unknown function 'g' (declare it with fn)");
    CHECK(syntax_error_of("fn f(a) {\n}\nf()\n") == "3:1: 'f' takes 1 argument, not 0");
    CHECK(syntax_error_of("fn f() {\n}\nspawn f(1, 2)\n") == "3:7: 'f' takes 0 arguments, not 2");
    CHECK(syntax_error_of("fn f(a, b) {\n}\nf(1 2)\n") ==
          "3:5: expected ',' or ')' in the arguments of 'f', found '2'");
}

TEST_CASE("statements that need an operand or give a value say so") {
    CHECK(syntax_error_of("fail\n") == "1:5: expected a message after 'fail', found end of line");
    CHECK(syntax_error_of("send ch\n") ==
          "1:8: expected the value to send after the channel, found end of line");
    CHECK(syntax_error_of("write s\n") ==
          "1:8: expected the data to write after the stream, found end of line");
    // A sign written after the first operand joins it: a hint says so.
    CHECK(syntax_error_of("send c -1\n") ==
          "1:10: expected the value to send after the channel, found end of line (the '-' at "
          "1:8 subtracts: an operator joins its neighbours; to send -1, write (-1))");
    CHECK(syntax_error_of("write s -x\n") ==
          "1:11: expected the data to write after the stream, found end of line (the '-' at 1:9 "
          "subtracts: an operator joins its neighbours; to write -x, write (-x))");
    CHECK(syntax_error_of("send c - 1\n") ==
          "1:11: expected the value to send after the channel, found end of line");
    CHECK(syntax_error_of("let x = join\n") ==
          "1:13: expected an operand after 'join', found end of line");
    CHECK(syntax_error_of("read s\n") ==
          "1:1: 'read' gives a value: keep it, e.g. 'let x = read ...'");
    CHECK(syntax_error_of("fn f() {\n}\nf() + 1\n") ==
          "3:5: expected a statement: this expression computes a value and drops it (keep it "
          "with 'let x = ...')");
    CHECK(syntax_error_of("let c = channel(1, 2)\n") ==
          "1:9: 'channel' takes one argument, its capacity, e.g. channel(4)");
    CHECK(syntax_error_of("let s = signal()\n") ==
          "1:9: 'signal' takes the names of the signals to wait for, e.g. signal(\"SIGINT\", "
          "\"SIGTERM\")");
    CHECK(syntax_error_of("let c = semaphore()\n") ==
          "1:9: 'semaphore' takes one argument, its number of permits, e.g. semaphore(4)");
}

TEST_CASE("spawn and race: their shape - and only as a whole value") {
    CHECK(syntax_error_of("spawn {\n}\n") ==
          "1:1: a spawned task needs a name: 'spawn worker { ... }', or a function: 'spawn f(x)'");
    CHECK(syntax_error_of("let h = spawn 3\n") == "1:15: expected a name after 'spawn', found '3'");
    CHECK(syntax_error_of("let o = race {\n}\n") ==
          "2:2: expected 'or' and a second block after the race's first block, found end of line");
    CHECK(syntax_error_of("print spawn w {\n}\n") ==
          "1:7: 'spawn' gives a value only as a whole expression: write 'let h = spawn ...' and "
          "use h");
    CHECK(syntax_error_of("let o = 1 + race {\n} or {\n}\n") ==
          "1:13: 'race' gives a value only as a whole expression: write 'let h = race ...' and "
          "use h");
}

TEST_CASE("expressions: comparisons do not chain - not is a word") {
    CHECK(syntax_error_of("let b = 1 < 2 < 3\n") ==
          "1:15: comparisons do not chain: write (a < b) and (b < c)");
    CHECK(syntax_error_of("let b = !x\n") ==
          "1:9: unexpected character '!' (write 'not' for negation, '!=' for inequality)");
    CHECK(syntax_error_of("let b = x.\n") == "1:11: expected a name after '.', found end of line");
}

TEST_CASE("a diagnostic quotes the line and puts a caret under the column") {
    try {
        rtkit::script::parse("t.rts", "let x = 1\n\tprint 1 +\n");
        FAIL("expected a syntax error");
    } catch (const rtkit::script::script_error& e) {
        // The program that owned the source is gone; the error keeps what it needs.
        CHECK(rtkit::script::format_diagnostic(e) ==
              "t.rts:2:11: error: expected an expression, found end of line\n"
              "  \tprint 1 +\n"
              "  \t         ^\n");
    }
}
