#pragma once
// Field-by-field comparison of runtime_config for the tests (it has no operator==).
#include <doctest/doctest.h>

#include "rtkit/runtime_config.hpp"

inline void check_same_selection(const rtkit::plugin_selection& a,
                                 const rtkit::plugin_selection& b) {
    CHECK(a.preference == b.preference);
    CHECK(a.strict == b.strict);
    CHECK(a.options == b.options);
}

inline void check_same_config(const rtkit::runtime_config& a, const rtkit::runtime_config& b) {
    CHECK(a.flavor == b.flavor);
    CHECK(a.workers == b.workers);
    CHECK(a.name == b.name);
    CHECK(a.plugin_search_path == b.plugin_search_path);
    CHECK(a.allow_insecure_plugins == b.allow_insecure_plugins);
    CHECK(a.blocking.max_threads == b.blocking.max_threads);
    CHECK(a.blocking.keep_alive == b.blocking.keep_alive);
    check_same_selection(a.reactor, b.reactor);
    check_same_selection(a.timer, b.timer);
    check_same_selection(a.lanes, b.lanes);
}
