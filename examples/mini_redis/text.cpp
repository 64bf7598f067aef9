#include "text.hpp"

#include <cstdint>

namespace mini_redis {

std::optional<std::int64_t> parse_int64(std::string_view text) noexcept {
    if (text.empty() || text.size() > 20) return std::nullopt;
    const bool negative = text[0] == '-';
    const std::string_view digits = text.substr(negative ? 1 : 0);
    // No "", no "-", no leading zeros ("0" alone is fine, "-0" is not).
    if (digits.empty() || (digits[0] == '0' && (digits.size() > 1 || negative)))
        return std::nullopt;
    std::uint64_t magnitude = 0;
    for (const char ch : digits) {
        if (ch < '0' || ch > '9') return std::nullopt;
        if (__builtin_mul_overflow(magnitude, 10u, &magnitude) ||
            __builtin_add_overflow(magnitude, static_cast<unsigned>(ch - '0'), &magnitude))
            return std::nullopt;
    }
    const std::uint64_t most = std::uint64_t{INT64_MAX} + (negative ? 1 : 0);
    if (magnitude > most) return std::nullopt;
    // Two's complement: the negation of the magnitude, also for INT64_MIN.
    return negative ? static_cast<std::int64_t>(0 - magnitude)
                    : static_cast<std::int64_t>(magnitude);
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
