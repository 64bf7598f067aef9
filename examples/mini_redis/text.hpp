#pragma once
// Reading the words of a request: integers and names as redis reads them.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mini_redis {

/// The value of `text` when it is a decimal integer that fits in 64 bits, as
/// redis's string2ll accepts it: an optional '-', digits, no '+', no spaces, no
/// leading zeros ("0" alone is fine), at most 20 characters. nullopt otherwise.
std::optional<std::int64_t> parse_int64(std::string_view text) noexcept;

/// True when `word` is `lower_case` in any case (command names and options).
bool equals_ignoring_case(std::string_view word, std::string_view lower_case) noexcept;

}  // namespace mini_redis
