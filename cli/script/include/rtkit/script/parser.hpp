#pragma once
// Turns a script into its syntax tree.
#include <memory>
#include <string>

#include "rtkit/script/ast.hpp"

namespace rtkit::script {

/// Limits that keep every later recursion (evaluation, dumping, destruction)
/// shallow whatever the input: nested blocks, and the depth of an expression
/// tree (a long chain like 1+1+...+1 counts one level per operator).
inline constexpr unsigned max_block_depth = 64;
inline constexpr unsigned max_expression_depth = 256;

/// Parses a whole script and checks what can be checked before it runs:
/// break and continue inside a loop, functions declared at the top level and
/// once, each call naming a declared function with the right number of
/// arguments. Throws script_error (syntax) at the first error, with the
/// position of the offending token.
program parse(std::shared_ptr<const source_file> file);

/// parse() of a file made from `name` and `text`.
program parse(std::string name, std::string text);

}  // namespace rtkit::script
