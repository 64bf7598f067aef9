#pragma once
// Evaluation of expressions. Synchronous: no expression awaits anything yet
// (a channel receive will, and will make this a coroutine).
#include "rtkit/script/ast.hpp"
#include "rtkit/script/environment.hpp"
#include "rtkit/script/value.hpp"

namespace rtkit::script {

/// The value of `e` in `env`. Throws script_error (runtime) with the position
/// of the failing node.
value evaluate(const expr& e, const environment& env);

}  // namespace rtkit::script
