#pragma once
// A KEY=VALUE assignment (a `--set`, an RTKIT_* variable) as a one-line TOML
// document, so that it is read, merged and checked exactly like the same key
// written in a file.
#include <cstdint>
#include <string>
#include <string_view>

namespace rtkit::config::detail {

/// One assignment, ready for the TOML reader.
struct assignment {
    std::string source;       ///< names it in errors: "--set", "environment variable RTKIT_X"
    std::string origin;       ///< recorded in value_origins: "--set", "env RTKIT_X"
    bool has_columns = true;  ///< errors point into the text; false: they name the source alone
    std::string toml;         ///< KEY=VALUE as given, read as TOML first
    /// KEY=VALUE with VALUE as a bare string (for a plugin preference a list
    /// split at ',', for a path list one split at ':'), read when `toml` is not
    /// TOML. Empty when VALUE starts like a TOML string, array or table: a
    /// malformed one is reported as such rather than taken for a name.
    std::string bare_toml;
    std::string bare_value;               ///< VALUE as given (trimmed), for messages
    std::uint32_t value_column = 0;       ///< 1-based column of VALUE in `toml`
    std::uint32_t bare_value_column = 0;  ///< 1-based column where VALUE starts in bare_toml
    /// When not empty, the assignment is only this error, reported in its
    /// turn: an RTKIT_ variable that names nothing.
    std::string refusal;
};

/// Splits `text` at its first '='. Throws config_error at `source` when there
/// is none.
assignment make_assignment(std::string_view text, std::string source, std::string origin,
                           bool has_columns);

}  // namespace rtkit::config::detail
