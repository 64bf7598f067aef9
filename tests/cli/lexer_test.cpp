#include "rtkit/script/lexer.hpp"

#include <doctest/doctest.h>

#include "rtkit/script/script_error.hpp"

using namespace rtkit::script;

namespace {
std::vector<token> lex(std::string text) {
    static source_file file;  // tokens point at it; one test at a time
    file = source_file{"t.rts", std::move(text)};
    return tokenize(file);
}
}  // namespace

TEST_CASE("tokens carry their kind - value and 1-based line and column") {
    const auto tokens = lex("let x = 10ms  # comment\n\n  print \"a\\\"b\\n\" -3\n");
    REQUIRE(tokens.size() == 11);
    CHECK(tokens[0].kind == token_kind::keyword);
    CHECK(tokens[0].text == "let");
    CHECK(tokens[1].kind == token_kind::identifier);
    CHECK(tokens[1].where.column == 5);
    CHECK(tokens[2].kind == token_kind::equals);
    CHECK(tokens[3].kind == token_kind::duration);
    CHECK(tokens[3].number == 10'000'000);
    CHECK(tokens[4].kind == token_kind::newline);  // comment and blank line add nothing
    CHECK(tokens[5].text == "print");
    CHECK(tokens[5].where.line == 3);
    CHECK(tokens[5].where.column == 3);
    CHECK(tokens[6].kind == token_kind::string);
    CHECK(tokens[6].text == "a\"b\n");
    CHECK(tokens[7].kind == token_kind::minus);
    CHECK(tokens[8].number == 3);
    CHECK(tokens[9].kind == token_kind::newline);
    CHECK(tokens[10].kind == token_kind::end_of_file);
}

TEST_CASE("every duration unit") {
    CHECK(lex("7ns")[0].number == 7);
    CHECK(lex("7us")[0].number == 7'000);
    CHECK(lex("7ms")[0].number == 7'000'000);
    CHECK(lex("7s")[0].number == 7'000'000'000);
}

TEST_CASE("the largest integer lexes and one more does not") {
    CHECK(lex("9223372036854775807")[0].number == 9223372036854775807);
    CHECK_THROWS_WITH_AS(lex("9223372036854775808"),
                         doctest::Contains("integer literal is too large"), script_error);
    CHECK_THROWS_WITH_AS(lex("9223372037s"), doctest::Contains("duration is too long"),
                         script_error);
}

TEST_CASE("lexical errors name the problem") {
    CHECK_THROWS_WITH_AS(lex("print \"abc"),
                         "t.rts:1:7: error: unterminated string (a string "
                         "ends with \" on the same line)",
                         script_error);
    CHECK_THROWS_WITH_AS(lex("print \"a\\q\""),
                         doctest::Contains("t.rts:1:9: error: unknown escape"), script_error);
    CHECK_THROWS_WITH_AS(lex("sleep 10m"), doctest::Contains("unknown unit 'm'"), script_error);
    CHECK_THROWS_WITH_AS(lex("x = 1 @ 2"), "t.rts:1:7: error: unexpected character '@'",
                         script_error);
    CHECK_THROWS_WITH_AS(lex("x = \x01"), doctest::Contains("unexpected byte 0x01"), script_error);
}

TEST_CASE("a name or unit long enough to flood a message is refused") {
    CHECK(lex("x" + std::string(254, 'y'))[0].text.size() == 255);
    CHECK_THROWS_WITH_AS(lex("print " + std::string(1'000'000, 'a')),
                         "t.rts:1:7: error: a name is at most 255 bytes long, not 1000000",
                         script_error);
    CHECK_THROWS_WITH_AS(lex("sleep 1" + std::string(1'000'000, 'm')),
                         "t.rts:1:7: error: unknown unit 'mmmmmmmm...' after a number (durations "
                         "use ns, us, ms or s)",
                         script_error);
}

TEST_CASE("durations with a fraction - exact to the nanosecond") {
    CHECK(lex("1.5s")[0].number == 1'500'000'000);
    CHECK(lex("1.5s")[0].text == "1.5s");
    CHECK(lex("0.25ms")[0].number == 250'000);
    CHECK(lex("2.000000001s")[0].number == 2'000'000'001);
    CHECK_THROWS_WITH_AS(lex("1.5ns"),
                         "t.rts:1:1: error: duration is not a whole number of nanoseconds",
                         script_error);
    CHECK_THROWS_WITH_AS(
        lex("1.5"), doctest::Contains("a number with a point needs a duration unit"), script_error);
    CHECK_THROWS_WITH_AS(lex("1.0000000001s"),
                         doctest::Contains("at most 9 digits after the point"), script_error);
    CHECK_THROWS_WITH_AS(lex("9223372036.9s"), doctest::Contains("duration is too long"),
                         script_error);
}

TEST_CASE("comparison and punctuation tokens") {
    const auto t = lex("== != < <= > >= = , . ( )");
    const token_kind expected[] = {
        token_kind::equal_equal, token_kind::not_equal,  token_kind::less,
        token_kind::less_equal,  token_kind::greater,    token_kind::greater_equal,
        token_kind::equals,      token_kind::comma,      token_kind::dot,
        token_kind::left_paren,  token_kind::right_paren};
    REQUIRE(t.size() == std::size(expected) + 2);
    for (std::size_t i = 0; i < std::size(expected); ++i) {
        CAPTURE(i);
        CHECK(t[i].kind == expected[i]);
    }
    CHECK(t[1].where.column == 4);
    CHECK(lex("h.value")[1].kind == token_kind::dot);  // a name, not a number: no fraction
    CHECK(lex("x = 1.value")[3].kind == token_kind::dot);
}

TEST_CASE("keywords are reserved words - other words are names") {
    for (const char* word :
         {"if", "race", "join_all", "none", "now", "and", "not", "spin", "acquire", "listen",
          "read", "write", "broadcast", "interval", "subscribe", "tick", "watch", "signal"}) {
        CAPTURE(word);
        CHECK(lex(word)[0].kind == token_kind::keyword);
    }
    CHECK(lex("reader")[0].kind == token_kind::identifier);
    CHECK(lex("join_all2")[0].kind == token_kind::identifier);
}
