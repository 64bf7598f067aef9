#pragma once
// A script's text and the positions that point into it.
#include <cstdint>
#include <string>
#include <string_view>

namespace rtkit::script {

/// One script file, held in memory for the whole run so that any error,
/// however late, can quote the offending line.
struct source_file {
    std::string name;  ///< as given on the command line; used in messages
    std::string text;

    /// The text of 1-based `line`, without its newline; empty past the end.
    std::string_view line_text(std::uint32_t line) const noexcept;
};

/// Where a token or AST node starts. Every node carries one, so that errors,
/// `rtctl inspect` and traces can all point at the script.
struct source_pos {
    const source_file* file = nullptr;  ///< owned by the program; outlives every node
    std::uint32_t line = 0;             ///< 1-based
    std::uint32_t column = 0;           ///< 1-based, in bytes
};

}  // namespace rtkit::script
