#pragma once
// The values a script computes with, and their checked arithmetic.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "rtkit/script/ast.hpp"

namespace rtkit::script {

class object;

/// `none`, an integer (int64), a boolean, a string, a duration, or an object
/// (a task handle, a task's outcome, a channel, a semaphore, a socket: see
/// object.hpp). Objects are shared: copying the value copies the reference, so
/// tasks that got a copy of a channel all use the same channel.
using value = std::variant<std::monostate, std::int64_t, bool, std::string,
                           std::chrono::nanoseconds, std::shared_ptr<object>>;

/// "none", "an integer", "a boolean", "a string", "a duration", or the
/// object's own ("a channel", ...), for messages.
std::string_view type_name(const value& v) noexcept;

/// How print shows a value: integers in decimal, strings as they are,
/// durations in the largest unit that keeps them whole ("1500ms", "2s"),
/// objects as they describe themselves ("channel(4)").
std::string to_display(const value& v);

/// Strings longer than this are a runtime error, so that doubling one in a
/// loop fails with a position instead of exhausting memory.
inline constexpr std::size_t max_string_length = 1 << 20;

/// Applies an arithmetic or comparison operator (never `and`/`or`, which
/// short-circuit: see truth()). Integers: + - * / % with overflow and
/// division by zero reported. Durations: d+d, d-d, d*n, n*d, d/n, d/d (an
/// integer), d%d, -d. Strings: s+s, and a string joined with any other value
/// shows that value as print does. == and != compare any two values (values of
/// different types are unequal; objects are equal when they are the same
/// object); < <= > >= order integers, durations and strings. Throws
/// script_error (runtime) at `where` otherwise.
value apply(binary_op op, const value& left, const value& right, source_pos where);
value apply(unary_op op, const value& operand, source_pos where);

/// The boolean `v`, which `what` (e.g. "if", "'and'") needs; throws
/// script_error at `where` when it is not a boolean (there is no truthiness).
bool truth(const value& v, std::string_view what, source_pos where);

/// An operand of `and` / `or` (`op`), which must be a boolean.
bool logic_operand(binary_op op, const value& v, source_pos where);

/// `.name` of `v`: an object's field; throws script_error at `where` when the
/// value has no such field, naming the fields it has.
value field_of(const value& v, const std::string& name, source_pos where);

}  // namespace rtkit::script
