#pragma once
// Runs a loader expecting a config_error and returns its text.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "rtkit/config/config_error.hpp"
#include "rtkit/config/load.hpp"

template <class Load>
std::string config_error_text(Load&& load) {
    try {
        load();
    } catch (const rtkit::config::config_error& e) {
        return e.what();
    }
    FAIL("expected a config_error");
    return {};
}

/// The error text of loading `toml` as a file named rt.toml.
inline std::string error_of(std::string_view toml) {
    return config_error_text([&] { rtkit::config::load_string(toml, "rt.toml"); });
}
