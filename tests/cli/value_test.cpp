#include "rtkit/script/value.hpp"

#include <doctest/doctest.h>

#include <limits>

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
    CHECK(error_of(binary_op::add, 1, std::string("a")) ==
          "cannot apply '+' to an integer and a string");
    CHECK(error_of(binary_op::add, std::chrono::nanoseconds(1), 1) ==
          "cannot apply '+' to a duration and an integer");
    CHECK(error_of(binary_op::subtract, std::string("a"), std::string("b")) ==
          "cannot apply '-' to a string and a string");
    CHECK(error_of(binary_op::divide, 5, std::chrono::nanoseconds(1)).find("cannot apply") == 0);
}

TEST_CASE("strings concatenate up to a limit") {
    CHECK(std::get<std::string>(
              apply(binary_op::add, std::string("ab"), std::string("cd"), here)) == "abcd");
    const std::string half(max_string_length / 2 + 1, 'x');
    CHECK(error_of(binary_op::add, half, half).find("string would be longer than") == 0);
}

TEST_CASE("print shows durations in the largest whole unit") {
    using ns = std::chrono::nanoseconds;
    CHECK(to_display(value(ns(2s))) == "2s");
    CHECK(to_display(value(ns(1500ms))) == "1500ms");
    CHECK(to_display(value(ns(7us))) == "7us");
    CHECK(to_display(value(ns(7))) == "7ns");
    CHECK(to_display(value(ns(0))) == "0ns");
    CHECK(to_display(value(std::int64_t{-3})) == "-3");
    CHECK(to_display(value(std::string("a b"))) == "a b");
}
