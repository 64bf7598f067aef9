#pragma once
// Edit-distance suggestions for "did you mean ...?" in configuration and
// script errors.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rtkit::config {

/// Edit distance: insert, delete, substitute or swap two adjacent characters,
/// each costs 1 (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, if it is close enough to be a plausible
/// typo: at most a third of the longer word's length, and at least one edit allowed.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);

/// "; did you mean 'X'?" for the closest candidate, or "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace rtkit::config
