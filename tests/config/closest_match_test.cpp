#include "rtkit/config/closest_match.hpp"

#include <doctest/doctest.h>

#include <array>

using rtkit::config::closest_match;
using rtkit::config::edit_distance;

TEST_CASE("edit distance counts insertions - deletions and substitutions") {
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("abc", "") == 3);
    CHECK(edit_distance("reactr", "reactor") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("flavour", "flavor") == 1);
    CHECK(edit_distance("cuont", "count") == 1);  // a swap is one edit
    CHECK(edit_distance("ab", "ba") == 1);
}

TEST_CASE("closest match picks the nearest plausible candidate only") {
    constexpr std::array<std::string_view, 5> tables{"runtime", "plugins", "reactor", "timer",
                                                     "lanes"};
    CHECK(closest_match("reactr", tables) == "reactor");
    CHECK(closest_match("timers", tables) == "timer");
    CHECK(closest_match("lane", tables) == "lanes");
    CHECK_FALSE(closest_match("zzzzzz", tables).has_value());
    // An exact match is not a suggestion.
    CHECK_FALSE(closest_match("timer", std::array<std::string_view, 1>{"timer"}).has_value());
}
