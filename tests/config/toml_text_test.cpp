#include <doctest/doctest.h>

#include <string>

#include "rtkit/config/load.hpp"
#include "rtkit/config/toml_text.hpp"

using rtkit::config::load_string;
using rtkit::config::toml_string;

namespace {
/// `value` written as a TOML string by toml_string, then read back by the loader.
std::string round_trip(const std::string& value) {
    return load_string("[runtime]\nname = " + toml_string(value) + "\n", "rt.toml").name;
}
}  // namespace

TEST_CASE("toml_string writes every ASCII character so that the loader reads it back") {
    for (int c = 1; c < 0x80; ++c) {
        const std::string value = "a" + std::string(1, static_cast<char>(c)) + "b";
        CAPTURE(c);
        CHECK(round_trip(value) == value);
    }
}

TEST_CASE("toml_string keeps UTF-8 text as it is") {
    const std::string value = "caf\xc3\xa9 \xe2\x9c\x93";
    CHECK(toml_string(value) == "\"" + value + "\"");
    CHECK(round_trip(value) == value);
}
