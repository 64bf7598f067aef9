#pragma once
// Where a diagnostic's position may point in the text it is about: what the
// harnesses check of every error position they see.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rtkit_fuzz {

/// The number of lines of `text` (1-based: an empty text has one line).
inline std::size_t line_count(std::string_view text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

/// The length of 1-based `line` of `text` in bytes, including a trailing '\r'.
inline std::size_t raw_line_length(std::string_view text, std::uint32_t line) {
    for (std::uint32_t n = 1; n < line; ++n)
        text.remove_prefix(text.find('\n') + 1);
    return text.substr(0, text.find('\n')).size();
}

/// True when `line`:`column` lies inside `text`: on an existing line, at one
/// of its characters or just after the last.
inline bool inside(std::string_view text, std::uint32_t line, std::uint32_t column) {
    return line >= 1 && line <= line_count(text) && column >= 1 &&
           column <= raw_line_length(text, line) + 1;
}

}  // namespace rtkit_fuzz
