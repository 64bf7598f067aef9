#pragma once
// Splitting an inline request ("SET key "two words"") into its words.
#include <string>
#include <string_view>
#include <vector>

namespace mini_redis {

/// Splits `line` into `words` as redis's sdssplitargs does: words separated by
/// spaces or tabs; "double quotes" with the escapes \n \r \t \b \a \xHH and
/// \<any> for that character; 'single quotes' with \' for a quote. A closing
/// quote must be followed by a space or the end of the line. Returns false
/// (with `words` unspecified) for an unbalanced quote.
bool split_inline_words(std::string_view line, std::vector<std::string>& words);

}  // namespace mini_redis
