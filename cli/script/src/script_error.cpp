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

std::string format_diagnostic(const script_error& error) {
    std::string text = error.what();
    text += '\n';
    const source_pos& where = error.where();
    if (where.line == 0) return text;
    const std::string& line = error.line_text();
    text += "  ";
    text += line;
    text += "\n  ";
    // Copy tabs so the caret lines up however the terminal expands them.
    for (std::uint32_t i = 0; i + 1 < where.column && i < line.size(); ++i)
        text += line[i] == '\t' ? '\t' : ' ';
    text += "^\n";
    return text;
}

}  // namespace rtkit::script
