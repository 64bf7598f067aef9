#include "rtkit/script/script_error.hpp"

#include <algorithm>

namespace rtkit::script {
namespace {

std::string locate(const source_pos& where) {
    const std::string file = where.file ? where.file->name : std::string("<script>");
    return file + ':' + std::to_string(where.line) + ':' + std::to_string(where.column);
}

}  // namespace

script_error::script_error(error_kind kind, source_pos where, std::string message)
    : std::runtime_error(locate(where) + ": error: " + message),
      kind_(kind),
      where_(where),
      message_(std::move(message)),
      line_text_(where.file ? std::string(where.file->line_text(where.line)) : std::string()) {}

namespace {

/// A quoted line shows at most this many bytes on each side of the column.
constexpr std::size_t quoted_context = 40;

/// How byte `c` of a line is shown: as itself when printable (or a tab),
/// else as \xNN, so that a binary file's line cannot garble the terminal.
std::string shown_byte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 0x20 && byte < 0x7f) || c == '\t') return std::string(1, c);
    constexpr char hex[] = "0123456789abcdef";
    return {'\\', 'x', hex[byte >> 4], hex[byte & 0xf]};
}

/// The line and a caret under `column` (1-based, in bytes), each indented by
/// two spaces: a window of the line around the column, "..." where it is
/// cut, so that an error on a megabyte-long line stays one screen line.
std::string quote_line(const std::string& line, std::uint32_t column) {
    const std::size_t at = std::min<std::size_t>(column > 0 ? column - 1 : 0, line.size());
    const std::size_t begin = at > quoted_context ? at - quoted_context : 0;
    const std::size_t end = std::min(line.size(), at + quoted_context);
    std::string shown = begin > 0 ? "..." : "";
    std::string caret_pad(shown.size(), ' ');
    for (std::size_t i = begin; i < end; ++i) {
        const std::string piece = shown_byte(line[i]);
        shown += piece;
        // Copy tabs so the caret lines up however the terminal expands them.
        if (i < at)
            caret_pad += line[i] == '\t' ? std::string("\t") : std::string(piece.size(), ' ');
    }
    if (end < line.size()) shown += "...";
    return "  " + shown + "\n  " + caret_pad + "^\n";
}

}  // namespace

std::string format_diagnostic(const script_error& error) {
    std::string text = error.what();
    text += '\n';
    if (error.where().line == 0) return text;
    return text + quote_line(error.line_text(), error.where().column);
}

std::string format_note(const source_pos& where, const std::string& message) {
    std::string text = locate(where) + ": note: " + message + '\n';
    if (where.line == 0 || !where.file) return text;
    return text + quote_line(std::string(where.file->line_text(where.line)), where.column);
}

}  // namespace rtkit::script
