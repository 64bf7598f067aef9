#include "rtkit/script/value.hpp"

#include <doctest/doctest.h>

#include <limits>

#include "rtkit/script/object.hpp"
#include "rtkit/script/script_error.hpp"

using namespace rtkit::script;
using namespace std::chrono_literals;

namespace {
const source_pos here{nullptr, 4, 2};
constexpr auto int_max = std::numeric_limits<std::int64_t>::max();
constexpr auto int_min = std::numeric_limits<std::int64_t>::min();

std::string error_of(binary_op op, value a, value b) {
    try {
        apply(op, a, b, here);
    } catch (const script_error& e) {
        CHECK(e.kind() == error_kind::runtime);
        CHECK(e.where().line == 4);
        return e.message();
    }
    return {};
}
}  // namespace

TEST_CASE("integer arithmetic") {
    CHECK(std::get<std::int64_t>(apply(binary_op::add, 2, 3, here)) == 5);
    CHECK(std::get<std::int64_t>(apply(binary_op::subtract, 2, 3, here)) == -1);
    CHECK(std::get<std::int64_t>(apply(binary_op::multiply, -4, 3, here)) == -12);
    CHECK(std::get<std::int64_t>(apply(binary_op::divide, 7, 2, here)) == 3);
    CHECK(std::get<std::int64_t>(apply(binary_op::divide, -7, 2, here)) == -3);
    CHECK(std::get<std::int64_t>(apply(binary_op::remainder, -7, 2, here)) == -1);
    CHECK(std::get<std::int64_t>(apply(unary_op::negate, value(int_max), here)) == -int_max);
}

TEST_CASE("integer overflow and division by zero are errors - not undefined behaviour") {
    CHECK(error_of(binary_op::add, int_max, 1) == "integer overflow in 9223372036854775807 + 1");
    CHECK(error_of(binary_op::subtract, int_min, 1).find("integer overflow") == 0);
    CHECK(error_of(binary_op::multiply, int_max / 2 + 1, 2).find("integer overflow") == 0);
    CHECK(error_of(binary_op::divide, int_min, -1).find("integer overflow") == 0);
    CHECK(std::get<std::int64_t>(apply(binary_op::remainder, int_min, -1, here)) == 0);
    CHECK(error_of(binary_op::divide, 1, 0) == "division by zero");
    CHECK(error_of(binary_op::remainder, 1, 0) == "remainder by zero");
    CHECK_THROWS_AS(apply(unary_op::negate, value(int_min), here), script_error);
}

TEST_CASE("duration arithmetic") {
    using ns = std::chrono::nanoseconds;
    CHECK(std::get<ns>(apply(binary_op::add, ns(10ms), ns(5ms), here)) == 15ms);
    CHECK(std::get<ns>(apply(binary_op::multiply, ns(10ms), 3, here)) == 30ms);
    CHECK(std::get<ns>(apply(binary_op::multiply, 3, ns(10ms), here)) == 30ms);
    CHECK(std::get<ns>(apply(binary_op::divide, ns(10ms), 4, here)) == 2500us);
    CHECK(std::get<std::int64_t>(apply(binary_op::divide, ns(1s), ns(10ms), here)) == 100);
    CHECK(std::get<ns>(apply(binary_op::remainder, ns(25ms), ns(10ms), here)) == 5ms);
    CHECK(std::get<ns>(apply(unary_op::negate, value(ns(1s)), here)) == -1s);
    CHECK(error_of(binary_op::multiply, ns(1s), int_max).find("duration overflow") == 0);
    CHECK(error_of(binary_op::divide, ns(1s), 0) == "division by zero");
}

TEST_CASE("mixing types is an error that names both") {
    CHECK(error_of(binary_op::multiply, 2, std::string("a")) ==
          "cannot apply '*' to an integer and a string");
    CHECK(error_of(binary_op::add, std::chrono::nanoseconds(1), 1) ==
          "cannot apply '+' to a duration and an integer");
    CHECK(error_of(binary_op::subtract, std::string("a"), std::string("b")) ==
          "cannot apply '-' to a string and a string");
    CHECK(error_of(binary_op::divide, 5, std::chrono::nanoseconds(1)).find("cannot apply") == 0);
}

TEST_CASE("comparisons: equality of any values - order of like ones") {
    using ns = std::chrono::nanoseconds;
    auto yes = [](binary_op op, value a, value b) { return std::get<bool>(apply(op, a, b, here)); };
    CHECK(yes(binary_op::equal, 3, 3));
    CHECK(yes(binary_op::not_equal, 3, 4));
    CHECK_FALSE(yes(binary_op::equal, 3, ns(3)));  // different types are unequal
    CHECK_FALSE(yes(binary_op::equal, value(std::monostate{}), 0));
    CHECK(yes(binary_op::equal, value(std::monostate{}), value(std::monostate{})));
    CHECK(yes(binary_op::equal, true, true));
    CHECK(yes(binary_op::less, 2, 3));
    CHECK(yes(binary_op::greater_equal, ns(1s), ns(1000ms)));
    CHECK(yes(binary_op::less_equal, std::string("abc"), std::string("abd")));
    CHECK_FALSE(yes(binary_op::greater, std::string("a"), std::string("b")));
    CHECK(error_of(binary_op::less, 1, ns(1)) == "cannot apply '<' to an integer and a duration");
    CHECK(error_of(binary_op::greater, true, false) ==
          "cannot apply '>' to a boolean and a boolean");
}

TEST_CASE("not and the operands of and - or are booleans - no truthiness") {
    CHECK(std::get<bool>(apply(unary_op::logical_not, value(false), here)));
    CHECK_THROWS_WITH_AS(
        apply(unary_op::logical_not, value(std::int64_t{1}), here),
        "<script>:4:2: error: 'not' needs a boolean, not an integer (compare it: x != 0, "
        "s != \"\", v != none)",
        script_error);
    CHECK(logic_operand(binary_op::logical_and, true, here));
    CHECK_THROWS_WITH_AS(logic_operand(binary_op::logical_or, std::string("x"), here),
                         doctest::Contains("'or' needs a boolean, not a string"), script_error);
}

TEST_CASE("a string joined with another value shows it as print does") {
    using ns = std::chrono::nanoseconds;
    CHECK(std::get<std::string>(apply(binary_op::add, std::string("n="), 5, here)) == "n=5");
    CHECK(std::get<std::string>(apply(binary_op::add, ns(2s), std::string(" left"), here)) ==
          "2s left");
    CHECK(std::get<std::string>(apply(binary_op::add, std::string("is "), true, here)) ==
          "is true");
}

TEST_CASE("strings concatenate up to a limit") {
    CHECK(std::get<std::string>(
              apply(binary_op::add, std::string("ab"), std::string("cd"), here)) == "abcd");
    const std::string half(max_string_length / 2 + 1, 'x');
    CHECK(error_of(binary_op::add, half, half).find("string would be longer than") == 0);
}

TEST_CASE("print shows a duration in its largest unit - with the decimals it needs") {
    using ns = std::chrono::nanoseconds;
    CHECK(to_display(value(ns(2s))) == "2s");
    CHECK(to_display(value(ns(1500ms))) == "1.5s");
    CHECK(to_display(value(ns(18145806))) == "18.145806ms");  // what `print now` shows
    CHECK(to_display(value(ns(1'000'000'001))) == "1.000000001s");
    CHECK(to_display(value(ns(7us))) == "7us");
    CHECK(to_display(value(ns(1250))) == "1.25us");
    CHECK(to_display(value(ns(7))) == "7ns");
    CHECK(to_display(value(ns(0))) == "0s");
    CHECK(to_display(value(ns(-1500ms))) == "-1.5s");
    CHECK(to_display(value(ns(std::numeric_limits<std::int64_t>::min()))) ==
          "-9223372036.854775808s");
    CHECK(to_display(value(std::int64_t{-3})) == "-3");
    CHECK(to_display(value(std::string("a b"))) == "a b");
    CHECK(to_display(value(std::monostate{})) == "none");
    CHECK(to_display(value(false)) == "false");
}

TEST_CASE("an outcome has fields - and a value only when ok") {
    const auto ok = task_outcome::ok(std::int64_t{42});
    CHECK(ok->display() == "ok(42)");
    CHECK(std::get<std::string>(field_of(value(std::shared_ptr<object>(ok)), "status", here)) ==
          "ok");
    CHECK(std::get<std::int64_t>(field_of(value(std::shared_ptr<object>(ok)), "value", here)) ==
          42);
    const auto failed = task_outcome::failed(task_outcome::status::error, "gave up", nullptr);
    const value v{std::shared_ptr<object>(failed)};
    CHECK(to_display(v) == "error(gave up)");
    CHECK_FALSE(std::get<bool>(field_of(v, "ok", here)));
    CHECK(std::get<std::string>(field_of(v, "message", here)) == "gave up");
    CHECK_THROWS_WITH_AS(field_of(v, "value", here),
                         doctest::Contains("the task's outcome is error(gave up): only an ok "
                                           "outcome has a value (test .ok first)"),
                         script_error);
    CHECK_THROWS_WITH_AS(
        field_of(v, "vaule", here),
        "<script>:4:2: error: an outcome has no field 'vaule' (it has .status, .ok, "
        ".value, .message)",
        script_error);
    CHECK_THROWS_WITH_AS(field_of(value(std::int64_t{1}), "x", here),
                         "<script>:4:2: error: an integer has no field 'x'", script_error);
    CHECK(task_outcome::cancelled("stop")->display() == "cancelled(stop)");
}
