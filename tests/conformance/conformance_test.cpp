// Runs each kind's conformance suite against every built-in plugin file of
// that kind, loaded from the build tree's plugin directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "rtkit/plugin_loader.hpp"

namespace {

std::vector<std::filesystem::path> builtin_plugins_of(rtkit_plugin_kind kind) {
    std::vector<std::filesystem::path> files;
    const rtkit::plugin_loader loader;
    for (const auto& entry : std::filesystem::directory_iterator(RTKIT_TEST_PLUGIN_DIR)) {
        if (entry.path().extension() != ".so") continue;
        if (loader.inspect(entry.path()).kind == kind) files.push_back(entry.path());
    }
    return files;
}

void check_every_plugin(rtkit_plugin_kind kind,
                        rtkit::conformance::report (*run)(const std::filesystem::path&,
                                                          const rtkit::option_table&)) {
    const auto files = builtin_plugins_of(kind);
    REQUIRE_MESSAGE(!files.empty(), "no built-in plugin of this kind in " RTKIT_TEST_PLUGIN_DIR);
    for (const auto& file : files) {
        const rtkit::conformance::report r = run(file, {});
        MESSAGE(rtkit::conformance::format_report(r));
        CHECK_MESSAGE(r.load_error.empty(), r.load_error);
        CHECK_FALSE(r.cases.empty());
        for (const auto& c : r.cases) {
            INFO(file.filename().string(), ": ", c.name, ": ", c.message);
            CHECK(c.outcome != rtkit::conformance::verdict::failed);
        }
    }
}

}  // namespace

TEST_CASE("every built-in reactor passes the reactor conformance suite") {
    check_every_plugin(RTKIT_PLUGIN_REACTOR, &rtkit::conformance::run_reactor_conformance);
}

TEST_CASE("every built-in timer driver passes the timer conformance suite") {
    check_every_plugin(RTKIT_PLUGIN_TIMER, &rtkit::conformance::run_timer_conformance);
}

TEST_CASE("every built-in lane policy passes the lanes conformance suite") {
    check_every_plugin(RTKIT_PLUGIN_LANES, &rtkit::conformance::run_lanes_conformance);
}

TEST_CASE("run_conformance picks the suite from the descriptor and reports a bad file") {
    const auto reactors = builtin_plugins_of(RTKIT_PLUGIN_REACTOR);
    REQUIRE_FALSE(reactors.empty());
    const auto r = rtkit::conformance::run_conformance(reactors.front());
    CHECK(r.kind == "reactor");
    CHECK(r.passed());

    const auto missing = rtkit::conformance::run_conformance("/nonexistent/rtkit_reactor_x.so");
    CHECK_FALSE(missing.passed());
    CHECK(missing.load_error.find("/nonexistent/rtkit_reactor_x.so") != std::string::npos);
    CHECK(rtkit::conformance::format_report(missing).find("could not load") != std::string::npos);
}

TEST_CASE("a suite run against a plugin of another kind is a load error - not a crash") {
    const auto timers = builtin_plugins_of(RTKIT_PLUGIN_TIMER);
    REQUIRE_FALSE(timers.empty());
    const auto r = rtkit::conformance::run_reactor_conformance(timers.front());
    CHECK_FALSE(r.passed());
    CHECK(r.cases.empty());
    CHECK(r.load_error.find("expected a reactor") != std::string::npos);
}
