#include "rtkit/script/evaluate.hpp"

#include "rtkit/script/overloaded.hpp"

namespace rtkit::script {

value evaluate(const expr& e, const environment& env) {
    return std::visit(
        overloaded{
            [](const integer_literal& n) -> value { return n.value; },
            [](const duration_literal& n) -> value { return n.value; },
            [](const string_literal& n) -> value { return n.value; },
            [&](const variable_ref& n) -> value { return env.lookup(n.name, e.where); },
            [&](const unary_expr& n) -> value {
                return apply(n.op, evaluate(*n.operand, env), e.where);
            },
            [&](const binary_expr& n) -> value {
                value left = evaluate(*n.left, env);
                return apply(n.op, left, evaluate(*n.right, env), e.where);
            },
        },
        e.node);
}

}  // namespace rtkit::script
