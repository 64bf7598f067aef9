#pragma once
// Splits a script into tokens.
#include <cstddef>
#include <vector>

#include "rtkit/script/source.hpp"
#include "rtkit/script/token.hpp"

namespace rtkit::script {

/// A name (of a variable, function, task or field) is at most this long, so
/// that every message that quotes one stays short.
inline constexpr std::size_t max_name_bytes = 255;

/// Tokenizes the whole file. Comments (# to end of line) and blank lines
/// vanish; each line that holds tokens ends with one newline token, and the
/// list ends with end_of_file. Throws script_error (syntax) at the first bad
/// character, unterminated string, bad escape, out-of-range number, unknown
/// duration unit or over-long name.
std::vector<token> tokenize(const source_file& file);

}  // namespace rtkit::script
