#include "rtkit/script/ast.hpp"

namespace rtkit::script {

std::string_view spelling(unary_op op) noexcept {
    switch (op) {
        case unary_op::negate:
            return "-";
        case unary_op::logical_not:
            return "not";
    }
    return "?";
}

std::string_view spelling(binary_op op) noexcept {
    switch (op) {
        case binary_op::add:
            return "+";
        case binary_op::subtract:
            return "-";
        case binary_op::multiply:
            return "*";
        case binary_op::divide:
            return "/";
        case binary_op::remainder:
            return "%";
        case binary_op::equal:
            return "==";
        case binary_op::not_equal:
            return "!=";
        case binary_op::less:
            return "<";
        case binary_op::less_equal:
            return "<=";
        case binary_op::greater:
            return ">";
        case binary_op::greater_equal:
            return ">=";
        case binary_op::logical_and:
            return "and";
        case binary_op::logical_or:
            return "or";
    }
    return "?";
}

std::string_view spelling(builtin op) noexcept {
    switch (op) {
        case builtin::join:
            return "join";
        case builtin::join_all:
            return "join_all";
        case builtin::recv:
            return "recv";
        case builtin::channel:
            return "channel";
        case builtin::semaphore:
            return "semaphore";
        case builtin::listen:
            return "listen";
        case builtin::accept:
            return "accept";
        case builtin::connect:
            return "connect";
        case builtin::read:
            return "read";
        case builtin::interval:
            return "interval";
        case builtin::tick:
            return "tick";
        case builtin::broadcast:
            return "broadcast";
        case builtin::watch:
            return "watch";
        case builtin::subscribe:
            return "subscribe";
        case builtin::signal:
            return "signal";
    }
    return "?";
}

}  // namespace rtkit::script
