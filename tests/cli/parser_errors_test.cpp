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
    CHECK(syntax_error_of("spawn { \n}\n") == "1:7: expected a name after 'spawn', found '{'");
    CHECK(syntax_error_of("let spawn = 1\n") ==
          "1:5: 'spawn' is a keyword and cannot be used as a name");
    CHECK(syntax_error_of("x\n") ==
          "1:1: expected a statement, found the name 'x' (assign with 'x = ...', declare with "
          "'let x = ...')");
    CHECK(syntax_error_of("if x {\n}\n") == "1:1: 'if' is not supported yet");
    CHECK(syntax_error_of("42\n") == "1:1: expected a statement, found '42'");
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
