#pragma once
// The syntax tree as S-expressions, one statement per line: what the parser
// understood, for tests and (later) `rtctl inspect`.
#include <string>

#include "rtkit/script/ast.hpp"

namespace rtkit::script {

/// e.g. "(let x (+ 1 (* 2 3)))". Strings are quoted with \" and \n escapes.
std::string dump(const expr& e);

/// Each statement on its own line, nested blocks indented by two spaces.
std::string dump(const block& b);

/// The functions (by name), then the top level.
std::string dump(const program& p);

}  // namespace rtkit::script
