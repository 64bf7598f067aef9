#pragma once
// Evaluation of pure expressions: those that need no runtime (expr::pure).
// The interpreter evaluates the others (calls, builtins, spawn, race, now),
// and hands every pure part of them to evaluate().
#include "rtkit/script/ast.hpp"
#include "rtkit/script/environment.hpp"
#include "rtkit/script/value.hpp"

namespace rtkit::script {

/// The value of the pure expression `e` in `env`. Throws script_error
/// (runtime) with the position of the failing node, and for an expression
/// that is not pure.
value evaluate(const expr& e, const environment& env);

}  // namespace rtkit::script
