#include "rtkit/script/value.hpp"

#include <limits>

#include "rtkit/script/overloaded.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {
namespace {

using std::chrono::nanoseconds;

[[noreturn]] void fail(source_pos where, std::string message) {
    throw script_error(error_kind::runtime, where, std::move(message));
}

std::int64_t checked(binary_op op, std::int64_t a, std::int64_t b, source_pos where,
                     std::string_view what) {
    std::int64_t result = 0;
    bool overflow = false;
    switch (op) {
        case binary_op::add:
            overflow = __builtin_add_overflow(a, b, &result);
            break;
        case binary_op::subtract:
            overflow = __builtin_sub_overflow(a, b, &result);
            break;
        case binary_op::multiply:
            overflow = __builtin_mul_overflow(a, b, &result);
            break;
        case binary_op::divide:
        case binary_op::remainder:
            if (b == 0)
                fail(where, op == binary_op::divide ? "division by zero" : "remainder by zero");
            // The one quotient that does not fit: INT64_MIN / -1.
            if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
                overflow = op == binary_op::divide;
                result = 0;
            } else {
                result = op == binary_op::divide ? a / b : a % b;
            }
            break;
    }
    if (overflow)
        fail(where, std::string(what) + " overflow in " + std::to_string(a) + ' ' +
                        std::string(spelling(op)) + ' ' + std::to_string(b));
    return result;
}

[[noreturn]] void mismatch(binary_op op, const value& left, const value& right, source_pos where) {
    fail(where, "cannot apply '" + std::string(spelling(op)) + "' to " +
                    std::string(type_name(left)) + " and " + std::string(type_name(right)));
}

}  // namespace

std::string_view type_name(const value& v) noexcept {
    switch (v.index()) {
        case 0:
            return "an integer";
        case 1:
            return "a string";
        default:
            return "a duration";
    }
}

std::string to_display(const value& v) {
    return std::visit(overloaded{
                          [](std::int64_t n) { return std::to_string(n); },
                          [](const std::string& s) { return s; },
                          [](nanoseconds d) {
                              const std::int64_t ns = d.count();
                              if (ns != 0 && ns % 1'000'000'000 == 0)
                                  return std::to_string(ns / 1'000'000'000) + "s";
                              if (ns != 0 && ns % 1'000'000 == 0)
                                  return std::to_string(ns / 1'000'000) + "ms";
                              if (ns != 0 && ns % 1'000 == 0)
                                  return std::to_string(ns / 1'000) + "us";
                              return std::to_string(ns) + "ns";
                          },
                      },
                      v);
}

value apply(binary_op op, const value& left, const value& right, source_pos where) {
    const auto* li = std::get_if<std::int64_t>(&left);
    const auto* ri = std::get_if<std::int64_t>(&right);
    const auto* ld = std::get_if<nanoseconds>(&left);
    const auto* rd = std::get_if<nanoseconds>(&right);
    const auto* ls = std::get_if<std::string>(&left);
    const auto* rs = std::get_if<std::string>(&right);

    if (li && ri) return checked(op, *li, *ri, where, "integer");
    if (ld && rd) {
        switch (op) {
            case binary_op::add:
            case binary_op::subtract:
            case binary_op::remainder:
                return nanoseconds(checked(op, ld->count(), rd->count(), where, "duration"));
            case binary_op::divide:
                return checked(op, ld->count(), rd->count(), where, "duration");
            case binary_op::multiply:
                break;
        }
    }
    if (ld && ri && (op == binary_op::multiply || op == binary_op::divide))
        return nanoseconds(checked(op, ld->count(), *ri, where, "duration"));
    if (li && rd && op == binary_op::multiply)
        return nanoseconds(checked(op, *li, rd->count(), where, "duration"));
    if (ls && rs && op == binary_op::add) {
        if (ls->size() + rs->size() > max_string_length)
            fail(where,
                 "string would be longer than " + std::to_string(max_string_length) + " bytes");
        return *ls + *rs;
    }
    mismatch(op, left, right, where);
}

value apply(unary_op op, const value& operand, source_pos where) {
    switch (op) {
        case unary_op::negate:
            if (const auto* n = std::get_if<std::int64_t>(&operand))
                return checked(binary_op::subtract, 0, *n, where, "integer");
            if (const auto* d = std::get_if<nanoseconds>(&operand))
                return nanoseconds(checked(binary_op::subtract, 0, d->count(), where, "duration"));
            break;
    }
    fail(where,
         "cannot apply '" + std::string(spelling(op)) + "' to " + std::string(type_name(operand)));
}

}  // namespace rtkit::script
