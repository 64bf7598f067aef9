// Plugin names and plugin tables are checked against the plugins on the search
// path (the built-in ones here), with the position of each problem.
#include <doctest/doctest.h>

#include <string>

#include "error_text.hpp"
#include "rtkit/config/load.hpp"

using rtkit::config::load_string;

namespace {
bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("a misspelt plugin option points at the key and suggests the declared one") {
    CHECK(error_of("[reactor.epoll]\nevents_per_pol = 64\n") ==
          "rt.toml:2:1: error: unknown option 'events_per_pol' in [reactor.epoll]; did you mean "
          "'events_per_poll'? (valid: events_per_poll)");
}

TEST_CASE("a plugin option of the wrong type points at the value and gives the default") {
    CHECK(error_of("[timer.wheel]\ntick_us = \"1ms\"\n") ==
          "rt.toml:2:11: error: option 'tick_us' in [timer.wheel] must be an integer, not a "
          "string (default: 1000)");
}

TEST_CASE("a plugin option out of its declared range names the range") {
    CHECK(error_of("[lanes.three_lane]\ncancel_streak_limit = 0\n") ==
          "rt.toml:2:23: error: option 'cancel_streak_limit' in [lanes.three_lane] is 0, out of "
          "its range 1..1024 (default: 16)");
    CHECK(load_string("[lanes.three_lane]\ncancel_streak_limit = 1024\n", "rt.toml")
              .lanes.options.at("three_lane")
              .size() == 1);
}

TEST_CASE("a table for an unknown plugin suggests the known one and lists them") {
    const auto text = error_of("[lanes.tree_lane]\nx = 1\n");
    CHECK(
        text.rfind(
            "rt.toml:1:8: error: [lanes.tree_lane] configures unknown lanes plugin "
            "'tree_lane'; did you mean 'three_lane'? (known lanes plugins: fifo, lab, three_lane;",
            0) == 0);
}

TEST_CASE("an unknown plugin name is an error only when the runtime could start none") {
    const auto text = error_of("[reactor]\nplugin = [\"kqueue_nope\", \"epol\"]\n");
    CHECK(contains(text,
                   "rt.toml:2:10: error: unknown reactor plugin 'kqueue_nope' in "
                   "'reactor.plugin' (known reactor plugins: "));
    CHECK(contains(text,
                   "rt.toml:2:10: error: unknown reactor plugin 'epol' in "
                   "'reactor.plugin'; did you mean 'epoll'?"));
    // A fallback list may name plugins not built here.
    CHECK(load_string("[reactor]\nplugin = [\"kqueue_nope\", \"epoll\"]\n", "rt.toml")
              .reactor.preference.size() == 2);
    // With strict there is no fallback: the first must exist.
    CHECK(contains(error_of("[reactor]\nplugin = [\"kqueue_nope\", \"epoll\"]\nstrict = true\n"),
                   "strict = true allows no fallback"));
}

TEST_CASE("a table for a fallback plugin that is not built here is accepted unchecked") {
    const auto config = load_string(
        "[reactor]\nplugin = [\"kqueue_nope\", \"epoll\"]\n[reactor.kqueue_nope]\nanything = 1\n",
        "rt.toml");
    CHECK(config.reactor.options.count("kqueue_nope") == 1);
}
