#include "rtkit/script/evaluate.hpp"

#include <doctest/doctest.h>

#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"

using namespace rtkit::script;

namespace {

/// Evaluates the expression of "let v = TEXT" in `env`.
value eval(const std::string& text, const environment& env = {}) {
    const program p = parse("e.rts", "let v = " + text + "\n");
    return evaluate(std::get<let_stmt>(p.body.statements.at(0).node).value, env);
}

std::string eval_error(const std::string& text, const environment& env = {}) {
    try {
        eval(text, env);
    } catch (const script_error& e) {
        return std::to_string(e.where().column) + ": " + e.message();
    }
    return {};
}

}  // namespace

TEST_CASE("expressions evaluate with precedence") {
    CHECK(std::get<std::int64_t>(eval("1 + 2 * 3 - 8 / 4 % 3")) == 5);
    CHECK(std::get<std::int64_t>(eval("-(1 + 2) * 3")) == -9);
    CHECK(std::get<std::string>(eval("\"a\" + \"b\"")) == "ab");
    CHECK(std::get<std::chrono::nanoseconds>(eval("10ms * 3 + 1s")) ==
          std::chrono::milliseconds(1030));
}

TEST_CASE("booleans - comparisons - and or short-circuit - none") {
    CHECK(std::get<bool>(eval("1 < 2 and 2 < 3")));
    CHECK(std::get<bool>(eval("not (1 == 2) or nope")));  // the right side never runs
    CHECK_FALSE(std::get<bool>(eval("1 > 2 and nope")));
    CHECK(std::get<bool>(eval("none == none")));
    CHECK(std::get<bool>(eval("\"a\" != none")));
    CHECK(std::holds_alternative<std::monostate>(eval("none")));
    CHECK(eval_error("1 and true") ==
          "11: 'and' needs a boolean, not an integer (compare it: x "
          "!= 0, s != \"\", v != none)");
}

TEST_CASE("a flat chain of operators is not nested - however long") {
    std::string sum = "1";
    for (int i = 1; i < 257; ++i)
        sum += "+1";
    CHECK(std::get<std::int64_t>(eval(sum)) == 257);
    CHECK(std::get<std::int64_t>(eval("10 - 2 - 3 + 1")) == 6);  // left to right
    CHECK(std::get<std::int64_t>(eval("2 * 3 % 4 * 5 / 2")) == 5);
    CHECK(std::get<bool>(eval("true and true and false or true")));
    // An error names the operator of its step.
    CHECK(eval_error("1 + 2 + 3 / 0 + 4") == "19: division by zero");
    CHECK(eval_error("true and true and 1") ==
          "23: 'and' needs a boolean, not an integer "
          "(compare it: x != 0, s != \"\", v != none)");
}

TEST_CASE("runtime errors point at the failing operator or name") {
    CHECK(eval_error("1 + 10 / (2 - 2)") == "16: division by zero");
    CHECK(eval_error("9223372036854775807 + 1") ==
          "29: integer overflow in 9223372036854775807 + 1");
    CHECK(eval_error("1 + nope") == "13: unknown variable 'nope'");
}

TEST_CASE("variables: scopes - shadowing - snapshots and suggestions") {
    environment env;
    const source_pos at{};
    env.declare("count", std::int64_t{1}, at);
    CHECK(std::get<std::int64_t>(eval("count + 1", env)) == 2);
    CHECK(eval_error("cuont", env) == "9: unknown variable 'cuont'; did you mean 'count'?");
    CHECK_THROWS_WITH_AS(env.declare("count", std::int64_t{2}, at),
                         doctest::Contains("already declared in this block"), script_error);
    {
        scope_guard inner(env);
        env.declare("count", std::int64_t{10}, at);  // shadows
        env.declare("local", std::int64_t{5}, at);
        const environment copy = env.snapshot();
        CHECK(std::get<std::int64_t>(eval("count + local", copy)) == 15);
        env.assign("count", std::int64_t{11}, at);
        CHECK(std::get<std::int64_t>(eval("count", copy)) == 10);  // a copy, not shared
    }
    CHECK(std::get<std::int64_t>(eval("count", env)) == 1);
    CHECK(eval_error("local", env) == "9: unknown variable 'local'");
    CHECK_THROWS_WITH_AS(env.assign("nothing", std::int64_t{1}, at),
                         doctest::Contains("unknown variable 'nothing'"), script_error);
}
