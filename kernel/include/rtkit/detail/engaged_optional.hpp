#pragma once
// engaged_optional: std::optional<T>(v) built so that it can be read back at once.
#include <bit>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace rtkit::detail {

/// Whether engaged_optional<T> builds the optional from two 64-bit words: an
/// integer of 64 bits, on a little-endian target, whose optional is the
/// value followed by its flag (every standard library's layout; the unit
/// tests check it).
template <class T>
inline constexpr bool optional_of_two_words =
    std::is_integral_v<T> && sizeof(T) == 8 && sizeof(std::optional<T>) == 16 &&
    std::is_trivially_copyable_v<std::optional<T>>&& std::endian::native == std::endian::little;

/// std::optional<T>(std::in_place, value). GCC builds one with a store of
/// the value and a byte store of its flag, then reads it back in wider loads
/// (to return it in registers, or to copy it), which the processor cannot
/// forward from the narrower stores: a stall of a dozen cycles or more. For
/// a 64-bit integer it is built from two whole words instead.
template <class T>
std::optional<T> engaged_optional(T value) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if constexpr (optional_of_two_words<T>) {
        struct words {
            T value;
            std::uint64_t engaged;  ///< the flag's byte is 1, the padding 0
        };
        return std::bit_cast<std::optional<T>>(words{value, 1});
    } else {
        return std::optional<T>(std::in_place, std::move(value));
    }
}

}  // namespace rtkit::detail
