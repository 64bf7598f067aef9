#pragma once
// rtctl inspect SCRIPT: the parsed program as a tree of its tasks and blocks.
#include <string>

#include "rtkit/script/ast.hpp"

namespace rtctl {

/// One line per function, task and block, indented by nesting, each with its
/// LINE:COLUMN and how many statements it holds directly, e.g.
///   6:1     spawn a: task, 2 statements
/// Functions first, then the top level (itself a task).
std::string script_outline(const rtkit::script::program& program);

}  // namespace rtctl
