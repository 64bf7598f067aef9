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
                value result = evaluate(*n.first, env);
                for (const binary_expr::step& s : n.rest) {
                    if (s.op == binary_op::logical_and || s.op == binary_op::logical_or) {
                        // `and` and `or` chains are never mixed: the first
                        // operand that decides ends the chain.
                        const bool decided = logic_operand(s.op, result, s.where);
                        if (decided == (s.op == binary_op::logical_or)) return decided;
                        result = logic_operand(s.op, evaluate(*s.operand, env), s.where);
                    } else {
                        result = apply(s.op, result, evaluate(*s.operand, env), s.where);
                    }
                }
                return result;
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
