#pragma once
// Checked access to the operands of statements and builtins: each says what
// it needed and what it got, at the operand's position.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rtkit/script/object.hpp"
#include "rtkit/script/script_error.hpp"
#include "rtkit/script/value.hpp"

namespace rtkit::interp {

[[noreturn]] inline void fail(script::source_pos where, std::string message) {
    throw script::script_error(script::error_kind::runtime, where, std::move(message));
}

/// "WHAT needs A_THING, not an integer"
[[noreturn]] inline void wrong_type(std::string_view what, std::string_view wanted,
                                    const script::value& v, script::source_pos where) {
    fail(where, std::string(what) + " needs " + std::string(wanted) + ", not " +
                    std::string(script::type_name(v)));
}

inline std::int64_t integer_operand(const script::value& v, std::string_view what,
                                    script::source_pos where) {
    if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
    wrong_type(what, "an integer", v, where);
}

inline const std::string& string_operand(const script::value& v, std::string_view what,
                                         script::source_pos where) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    wrong_type(what, "a string", v, where);
}

/// A duration of zero or more.
inline std::chrono::nanoseconds duration_operand(const script::value& v, std::string_view what,
                                                 script::source_pos where) {
    const auto* d = std::get_if<std::chrono::nanoseconds>(&v);
    if (!d) wrong_type(what, "a duration such as 10ms", v, where);
    if (d->count() < 0)
        fail(where,
             std::string(what) + " needs a duration of zero or more, not " + script::to_display(v));
    return *d;
}

/// The object of type T in `v`; `wanted` names T in the message ("a channel").
template <class T>
std::shared_ptr<T> object_operand(const script::value& v, std::string_view what,
                                  std::string_view wanted, script::source_pos where) {
    if (const auto* o = std::get_if<std::shared_ptr<script::object>>(&v))
        if (auto typed = std::dynamic_pointer_cast<T>(*o)) return typed;
    wrong_type(what, wanted, v, where);
}

}  // namespace rtkit::interp
