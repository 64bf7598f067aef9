#pragma once
// Splits a script into tokens.
#include <vector>

#include "rtkit/script/source.hpp"
#include "rtkit/script/token.hpp"

namespace rtkit::script {

/// Tokenizes the whole file. Comments (# to end of line) and blank lines
/// vanish; each line that holds tokens ends with one newline token, and the
/// list ends with end_of_file. Throws script_error (syntax) at the first bad
/// character, unterminated string, bad escape, out-of-range number or unknown
/// duration unit.
std::vector<token> tokenize(const source_file& file);

}  // namespace rtkit::script
