// detail::block_array, the timer drivers' storage: elements never move as it
// grows, and emplace_back gives a default value, also where a pop_back left
// an old one behind.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rtkit/detail/block_array.hpp"

using rtkit::detail::block_array;

TEST_CASE("block_array: elements keep their address while it grows by blocks") {
    block_array<std::string, 2> a;  // blocks of 4
    std::vector<const std::string*> addresses;
    for (int i = 0; i < 100; ++i) {
        a.emplace_back() = std::to_string(i);
        addresses.push_back(&a[static_cast<std::size_t>(i)]);
    }
    REQUIRE(a.size() == 100);
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(&a[i] == addresses[i]);
        CHECK(a[i] == std::to_string(i));
    }
    CHECK(a.front() == "0");
    CHECK(a.back() == "99");
}

TEST_CASE("block_array: emplace_back after pop_back gives a default value") {
    block_array<std::string, 2> a;
    CHECK(a.empty());
    a.emplace_back() = "kept";
    a.emplace_back() = "popped";
    a.pop_back();
    CHECK(a.size() == 1);
    CHECK(a.emplace_back().empty());
    CHECK(a[0] == "kept");
}
