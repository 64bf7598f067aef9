#pragma once
// The values a script computes with, and their checked arithmetic.
#include <chrono>
#include <cstdint>
#include <string>
#include <variant>

#include "rtkit/script/ast.hpp"

namespace rtkit::script {

/// An integer (int64), a string or a duration. Booleans, task handles and
/// channels join as the language grows.
using value = std::variant<std::int64_t, std::string, std::chrono::nanoseconds>;

/// "an integer", "a string", "a duration", for messages.
std::string_view type_name(const value& v) noexcept;

/// How print shows a value: integers in decimal, strings as they are,
/// durations in the largest unit that keeps them whole ("1500ms", "2s").
std::string to_display(const value& v);

/// Strings longer than this are a runtime error, so that doubling one in a
/// loop fails with a position instead of exhausting memory.
inline constexpr std::size_t max_string_length = 1 << 20;

/// Applies `op`. Integers: + - * / % with overflow and division by zero
/// reported. Durations: d+d, d-d, d*n, n*d, d/n, d/d (an integer), d%d, -d.
/// Strings: s+s. Throws script_error (runtime) at `where` otherwise.
value apply(binary_op op, const value& left, const value& right, source_pos where);
value apply(unary_op op, const value& operand, source_pos where);

}  // namespace rtkit::script
