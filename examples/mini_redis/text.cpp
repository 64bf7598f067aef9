#include "text.hpp"

#include <charconv>

namespace mini_redis {

std::optional<std::int64_t> parse_int64(std::string_view text) noexcept {
    if (text.empty() || text.size() > 20) return std::nullopt;
    const std::size_t digits_at = text[0] == '-' ? 1 : 0;
    if (digits_at == text.size()) return std::nullopt;  // "-" alone
    // from_chars takes neither '+' nor spaces, but it takes "007" and "-0".
    if (text[digits_at] == '0' && text.size() > digits_at + 1) return std::nullopt;
    if (text == "-0") return std::nullopt;
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

bool equals_ignoring_case(std::string_view word, std::string_view lower_case) noexcept {
    if (word.size() != lower_case.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
        const char ch = word[i];
        if ((ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch) != lower_case[i])
            return false;
    }
    return true;
}

}  // namespace mini_redis
