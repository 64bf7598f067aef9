// The parser must never crash: every input either parses or throws a
// script_error with a position inside the file.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "parse_helpers.hpp"

using namespace rtkit::script;

namespace {

/// Parses `text`; fails the test on anything but success or a syntax error
/// with a sane position.
void parse_or_syntax_error(const std::string& text) {
    try {
        parse("nasty.rts", text);
    } catch (const script_error& e) {
        CHECK(e.kind() == error_kind::syntax);
        CHECK(e.where().line >= 1);
        CHECK(e.where().column >= 1);
        CHECK(format_diagnostic(e).find('^') != std::string::npos);
    }
}

std::string repeated(std::string_view piece, std::size_t times) {
    std::string text;
    for (std::size_t i = 0; i < times; ++i)
        text += piece;
    return text;
}

}  // namespace

TEST_CASE("unterminated strings - unbalanced braces - huge numbers") {
    CHECK(syntax_error_of("print \"never closed\n") ==
          "1:7: unterminated string (a string ends with \" on the same line)");
    CHECK(syntax_error_of("print \"ends in a backslash\\") ==
          "1:7: unterminated string (a string ends with \" on the same line)");
    CHECK(syntax_error_of("}\n}\n{\n") == "1:1: unmatched '}' (no block is open here)");
    CHECK(syntax_error_of("{\n") == "1:1: expected a statement, found '{'");
    CHECK(syntax_error_of("print 99999999999999999999999999999999\n") ==
          "1:7: integer literal is too large (the largest is 9223372036854775807)");
}

TEST_CASE("deep nesting is refused with a position - not a stack overflow") {
    std::string blocks = repeated("repeat 1 {\n", 100000) + repeated("}\n", 100000);
    CHECK(syntax_error_of(blocks).find("blocks are nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("print " + repeated("(", 100000) + "1" + repeated(")", 100000))
              .find("expression is nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("print " + repeated("-", 100000) + "1")
              .find("expression is nested too deeply") != std::string::npos);
    // A flat chain of operators is one level, however long.
    CHECK(syntax_error_of("print 1" + repeated(" + 1", 100000)).empty());
    CHECK(syntax_error_of("print true" + repeated(" and true", 100000)).empty());
    CHECK(syntax_error_of("print " + repeated("not ", 100000) + "true")
              .find("expression is nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("let x = " + repeated("join ", 100000) + "h")
              .find("expression is nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("print x" + repeated(".a", 100000))
              .find("expression is nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("fn f(a) {\n}\nprint " + repeated("f(", 100000) + "1" +
                          repeated(")", 100000))
              .find("expression is nested too deeply") != std::string::npos);
    CHECK(syntax_error_of("print 1" + repeated(" == 1", 3)).find("do not chain") !=
          std::string::npos);
    // Just inside the limits is fine.
    CHECK(syntax_error_of(repeated("repeat 1 {\n", max_block_depth) +
                          repeated("}\n", max_block_depth))
              .empty());
    CHECK(syntax_error_of("print " + repeated("(", 200) + "1" + repeated(")", 200)).empty());
}

TEST_CASE("random bytes and random token soup never crash the parser") {
    std::mt19937 rng(20240611);
    const std::string pieces[] = {
        "spawn",  "join",    "let",  "print",    "repeat",  "sleep",  "yield",
        "{",      "}",       "(",    ")",        "+",       "-",      "*",
        "/",      "%",       "=",    "\n",       " ",       "x",      "1",
        "10ms",   "\"s\"",   "#c",   "\"",       "\\",      "\t",     "9999999999999999999",
        "if",     "else",    "loop", "break",    "fn",      "f",      ",",
        ".",      "<",       "==",   "race",     "or",      "and",    "not",
        "return", "1.5s",    "none", "join_all", "timeout", "region", "recv",
        "as",     "continue"};
    for (int round = 0; round < 2000; ++round) {
        std::string soup;
        const int length = static_cast<int>(rng() % 40);
        for (int i = 0; i < length; ++i)
            soup += pieces[rng() % std::size(pieces)];
        parse_or_syntax_error(soup);
        std::string bytes;
        for (int i = 0; i < length; ++i)
            bytes += static_cast<char>(rng() % 256);
        parse_or_syntax_error(bytes);
    }
}

namespace {

/// What rtctl prints for the syntax error of `text`.
std::string diagnostic_of(const std::string& text) {
    try {
        parse("nasty.rts", text);
    } catch (const script_error& e) {
        return format_diagnostic(e);
    }
    return "";
}

}  // namespace

TEST_CASE("an error on a huge line quotes a bounded window around its column") {
    // The error (a '+' with nothing after it) sits half a megabyte into the line.
    const std::string text = "let x = \"" + std::string(500'000, 'a') + "\" + \n";
    const std::string d = diagnostic_of(text);
    CHECK(d.rfind("nasty.rts:1:500014: error: expected an expression, found end of line\n", 0) ==
          0);
    CHECK(d.size() < 200);
    // The 40 bytes before the column, then the caret under the column.
    CHECK(d.substr(d.find('\n') + 1) ==
          "  ..." + std::string(36, 'a') + "\" + \n" + std::string(2 + 3 + 40, ' ') + "^\n");
    // Near the start of a long line: no "..." before, 40 bytes after the column.
    const std::string early = diagnostic_of("let = \"" + std::string(100'000, 'b') + "\"\n");
    CHECK(early.substr(early.find('\n') + 1) ==
          "  let = \"" + std::string(37, 'b') + "...\n      ^\n");
}

TEST_CASE("an error on a binary line shows its bytes escaped - never raw") {
    std::string text = "print 1\n";
    text += std::string(
        "\x7f"
        "ELF\x02\x01\x01\0\0\0\0\0",
        12);
    text += "\n";
    const std::string d = diagnostic_of(text);
    CHECK(d.rfind("nasty.rts:2:1: error: unexpected byte 0x7f", 0) == 0);
    CHECK(d.substr(d.find('\n') + 1) ==
          "  \\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\n  ^\n");
    // A caret after escaped bytes lines up with what was printed.
    const std::string after = diagnostic_of(std::string("\"\x01\" \x01\n", 6));
    CHECK(after.substr(after.find('\n') + 1) == "  \"\\x01\" \\x01\n         ^\n");
    for (const char c : d + after)
        CHECK((c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)));
}
