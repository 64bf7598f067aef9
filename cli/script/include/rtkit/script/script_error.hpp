#pragma once
// rtkit::script::script_error: a problem in a script, at a position.
#include <stdexcept>
#include <string>

#include "rtkit/script/source.hpp"

namespace rtkit::script {

/// Syntax errors stop a script before it runs (rtctl exits 2); runtime errors
/// stop the task that hit them (rtctl exits 1).
enum class error_kind { syntax, runtime };

class script_error : public std::runtime_error {
  public:
    /// what() is "FILE:LINE:COLUMN: error: MESSAGE". The file's name and the
    /// offending line are copied, so the error stays printable after the
    /// source is gone (a syntax error outlives the parse that owned it).
    script_error(error_kind kind, source_pos where, std::string message);

    error_kind kind() const noexcept { return kind_; }
    /// Line and column; `file` may dangle once the program is destroyed.
    const source_pos& where() const noexcept { return where_; }
    const std::string& message() const noexcept { return message_; }
    /// The text of the offending line (empty when there is no file).
    const std::string& line_text() const noexcept { return line_text_; }

  private:
    error_kind kind_;
    source_pos where_;
    std::string message_;
    std::string line_text_;
};

/// what() followed by the offending line and a caret under the column, as a
/// compiler prints it; ends with a newline.
std::string format_diagnostic(const script_error& error);

/// "FILE:LINE:COLUMN: note: MESSAGE", then the line and a caret, as
/// format_diagnostic lays out an error. Reads the line from the file, which
/// must still be alive.
std::string format_note(const source_pos& where, const std::string& message);

}  // namespace rtkit::script
