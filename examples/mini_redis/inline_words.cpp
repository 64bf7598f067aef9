#include "inline_words.hpp"

namespace mini_redis {
namespace {

bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Reads a "double quoted" part starting after its opening quote at `i`;
/// returns the offset after the closing quote, or npos when there is none.
std::size_t read_double_quoted(std::string_view line, std::size_t i, std::string& word) {
    while (i < line.size()) {
        const char c = line[i];
        if (c == '"') return i + 1;
        if (c == '\\' && i + 3 < line.size() && line[i + 1] == 'x' && hex_value(line[i + 2]) >= 0 &&
            hex_value(line[i + 3]) >= 0) {
            word.push_back(static_cast<char>(hex_value(line[i + 2]) * 16 + hex_value(line[i + 3])));
            i += 4;
        } else if (c == '\\' && i + 1 < line.size()) {
            switch (const char e = line[i + 1]) {
                case 'n':
                    word.push_back('\n');
                    break;
                case 'r':
                    word.push_back('\r');
                    break;
                case 't':
                    word.push_back('\t');
                    break;
                case 'b':
                    word.push_back('\b');
                    break;
                case 'a':
                    word.push_back('\a');
                    break;
                default:
                    word.push_back(e);
                    break;
            }
            i += 2;
        } else {
            word.push_back(c);
            ++i;
        }
    }
    return std::string_view::npos;
}

/// The same for a 'single quoted' part, where only \' is an escape.
std::size_t read_single_quoted(std::string_view line, std::size_t i, std::string& word) {
    while (i < line.size()) {
        const char c = line[i];
        if (c == '\'') return i + 1;
        if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\'') {
            word.push_back('\'');
            i += 2;
        } else {
            word.push_back(c);
            ++i;
        }
    }
    return std::string_view::npos;
}

}  // namespace

bool split_inline_words(std::string_view line, std::vector<std::string>& words) {
    words.clear();
    std::size_t i = 0;
    while (true) {
        while (i < line.size() && is_space(line[i]))
            ++i;
        if (i == line.size()) return true;
        std::string& word = words.emplace_back();
        // A word runs to the next space; quotes may start anywhere in it.
        while (i < line.size() && !is_space(line[i])) {
            const char c = line[i];
            if (c != '"' && c != '\'') {
                word.push_back(c);
                ++i;
                continue;
            }
            i = c == '"' ? read_double_quoted(line, i + 1, word)
                         : read_single_quoted(line, i + 1, word);
            if (i == std::string_view::npos) return false;
            if (i < line.size() && !is_space(line[i])) return false;
        }
    }
}

}  // namespace mini_redis
