#pragma once
// Runs a loader expecting a config_error and returns its text.
#include <doctest/doctest.h>

#include <string>

#include "rtkit/config/config_error.hpp"

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
