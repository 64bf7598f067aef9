#include "rtkit/script/ast.hpp"

namespace rtkit::script {

std::string_view spelling(unary_op op) noexcept {
    switch (op) {
        case unary_op::negate:
            return "-";
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
    }
    return "?";
}

}  // namespace rtkit::script
