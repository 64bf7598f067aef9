#include "rtkit/script/evaluate.hpp"

#include "rtkit/script/overloaded.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {

value evaluate(const expr& e, const environment& env) {
    return std::visit(
        overloaded{
            [](const none_literal&) -> value { return std::monostate{}; },
            [](const bool_literal& n) -> value { return n.value; },
            [](const integer_literal& n) -> value { return n.value; },
            [](const duration_literal& n) -> value { return n.value; },
            [](const string_literal& n) -> value { return n.value; },
            [&](const variable_ref& n) -> value { return env.lookup(n.name, e.where); },
            [&](const unary_expr& n) -> value {
                return apply(n.op, evaluate(*n.operand, env), e.where);
            },
            [&](const binary_expr& n) -> value {
                value left = evaluate(*n.left, env);
                if (n.op == binary_op::logical_and || n.op == binary_op::logical_or) {
                    const bool l = logic_operand(n.op, left, e.where);
                    if (l == (n.op == binary_op::logical_or)) return l;
                    return logic_operand(n.op, evaluate(*n.right, env), e.where);
                }
                return apply(n.op, left, evaluate(*n.right, env), e.where);
            },
            [&](const field_expr& n) -> value {
                return field_of(evaluate(*n.object, env), n.name, e.where);
            },
            [&](const auto&) -> value {
                throw script_error(error_kind::runtime, e.where,
                                   "internal error: this expression needs the runtime");
            },
        },
        e.node);
}

}  // namespace rtkit::script
