#include "rtkit/script/value.hpp"

#include <limits>

#include "rtkit/script/object.hpp"
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
        default:
            fail(where, "internal error: '" + std::string(spelling(op)) + "' is not arithmetic");
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

bool is_comparison(binary_op op) {
    return op == binary_op::less || op == binary_op::less_equal || op == binary_op::greater ||
           op == binary_op::greater_equal;
}

template <class T>
bool compare(binary_op op, const T& a, const T& b) {
    switch (op) {
        case binary_op::less:
            return a < b;
        case binary_op::less_equal:
            return a <= b;
        case binary_op::greater:
            return a > b;
        default:
            return a >= b;
    }
}

value concatenate(const std::string& left, const std::string& right, source_pos where) {
    if (left.size() + right.size() > max_string_length)
        fail(where, "string would be longer than " + std::to_string(max_string_length) + " bytes");
    return left + right;
}

}  // namespace

std::string_view type_name(const value& v) noexcept {
    return std::visit(overloaded{
                          [](std::monostate) -> std::string_view { return "none"; },
                          [](std::int64_t) -> std::string_view { return "an integer"; },
                          [](bool) -> std::string_view { return "a boolean"; },
                          [](const std::string&) -> std::string_view { return "a string"; },
                          [](nanoseconds) -> std::string_view { return "a duration"; },
                          [](const std::shared_ptr<object>& o) { return o->type_name(); },
                      },
                      v);
}

namespace {

/// In the largest unit in which it is at least 1, with the decimals it
/// needs: 2s, 1.5s, 18.145806ms, 7ns. Exact, and a duration literal again.
std::string duration_text(std::int64_t ns) {
    if (ns == 0) return "0s";
    // The magnitude as unsigned, so that the most negative duration has one.
    const std::uint64_t magnitude =
        ns < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    struct unit {
        std::uint64_t size;
        int digits;  ///< decimals of a fraction of it
        const char* name;
    };
    constexpr unit units[] = {{1'000'000'000, 9, "s"}, {1'000'000, 6, "ms"}, {1'000, 3, "us"}};
    std::string text = ns < 0 ? "-" : "";
    for (const unit& u : units) {
        if (magnitude < u.size) continue;
        text += std::to_string(magnitude / u.size);
        if (const std::uint64_t fraction = magnitude % u.size; fraction != 0) {
            std::string decimals = std::to_string(fraction);
            decimals.insert(0, static_cast<std::size_t>(u.digits) - decimals.size(), '0');
            decimals.erase(decimals.find_last_not_of('0') + 1);
            text += '.' + decimals;
        }
        return text + u.name;
    }
    return text + std::to_string(magnitude) + "ns";
}

}  // namespace

std::string to_display(const value& v) {
    return std::visit(overloaded{
                          [](std::monostate) -> std::string { return "none"; },
                          [](std::int64_t n) { return std::to_string(n); },
                          [](bool b) -> std::string { return b ? "true" : "false"; },
                          [](const std::string& s) { return s; },
                          [](nanoseconds d) { return duration_text(d.count()); },
                          [](const std::shared_ptr<object>& o) { return o->display(); },
                      },
                      v);
}

value apply(binary_op op, const value& left, const value& right, source_pos where) {
    if (op == binary_op::equal || op == binary_op::not_equal) {
        // Values of different types are unequal; objects compare by identity.
        const bool same = left == right;
        return op == binary_op::equal ? same : !same;
    }
    const auto* li = std::get_if<std::int64_t>(&left);
    const auto* ri = std::get_if<std::int64_t>(&right);
    const auto* ld = std::get_if<nanoseconds>(&left);
    const auto* rd = std::get_if<nanoseconds>(&right);
    const auto* ls = std::get_if<std::string>(&left);
    const auto* rs = std::get_if<std::string>(&right);

    if (is_comparison(op)) {
        if (li && ri) return compare(op, *li, *ri);
        if (ld && rd) return compare(op, *ld, *rd);
        if (ls && rs) return compare(op, *ls, *rs);
        mismatch(op, left, right, where);
    }
    if (op == binary_op::logical_and || op == binary_op::logical_or)
        fail(where, "internal error: '" + std::string(spelling(op)) + "' must short-circuit");

    if (li && ri) return checked(op, *li, *ri, where, "integer");
    if (ld && rd) {
        switch (op) {
            case binary_op::add:
            case binary_op::subtract:
            case binary_op::remainder:
                return nanoseconds(checked(op, ld->count(), rd->count(), where, "duration"));
            case binary_op::divide:
                return checked(op, ld->count(), rd->count(), where, "duration");
            default:
                break;
        }
    }
    if (ld && ri && (op == binary_op::multiply || op == binary_op::divide))
        return nanoseconds(checked(op, ld->count(), *ri, where, "duration"));
    if (li && rd && op == binary_op::multiply)
        return nanoseconds(checked(op, *li, rd->count(), where, "duration"));
    if (op == binary_op::add && (ls || rs))
        return concatenate(ls ? *ls : to_display(left), rs ? *rs : to_display(right), where);
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
        case unary_op::logical_not:
            return !truth(operand, "'not'", where);
    }
    fail(where,
         "cannot apply '" + std::string(spelling(op)) + "' to " + std::string(type_name(operand)));
}

bool truth(const value& v, std::string_view what, source_pos where) {
    if (const bool* b = std::get_if<bool>(&v)) return *b;
    fail(where, std::string(what) + " needs a boolean, not " + std::string(type_name(v)) +
                    " (compare it: x != 0, s != \"\", v != none)");
}

bool logic_operand(binary_op op, const value& v, source_pos where) {
    if (const bool* b = std::get_if<bool>(&v)) return *b;
    return truth(v, "'" + std::string(spelling(op)) + "'", where);
}

value field_of(const value& v, const std::string& name, source_pos where) {
    const auto* o = std::get_if<std::shared_ptr<object>>(&v);
    if (!o) fail(where, std::string(type_name(v)) + " has no field '" + name + "'");
    const std::vector<std::string_view> names = (*o)->field_names();
    for (std::string_view known : names)
        if (known == name) return (*o)->field(name, where);
    std::string list;
    for (std::string_view known : names)
        list += (list.empty() ? "." : ", .") + std::string(known);
    fail(where, std::string((*o)->type_name()) + " has no field '" + name + "'" +
                    (list.empty() ? std::string() : " (it has " + list + ")"));
}

}  // namespace rtkit::script
