#include "rtkit/script/script_error.hpp"

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

/// The line and a caret under `column`, each indented by two spaces.
std::string quote_line(const std::string& line, std::uint32_t column) {
    std::string text = "  " + line + "\n  ";
    // Copy tabs so the caret lines up however the terminal expands them.
    for (std::uint32_t i = 0; i + 1 < column && i < line.size(); ++i)
        text += line[i] == '\t' ? '\t' : ' ';
    return text + "^\n";
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
