#pragma once
// rtkit::script::check_names: what name resolution will hit when a script
// runs, found without running it (rtctl check).
#include <vector>

#include "rtkit/script/ast.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {

/// Every use or assignment of a variable that no enclosing block declares
/// before it, and every name declared twice in one block (`let`, `spawn
/// NAME`), in script order (the top level, then each function). Scoping is
/// the interpreter's: a block sees the blocks around it, a spawned block or
/// race block what was visible where it started, a function its parameters
/// only, so each error is one the script would hit if it ran there.
std::vector<script_error> check_names(const program& p);

}  // namespace rtkit::script
