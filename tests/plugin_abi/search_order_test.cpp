// Two plugins with one kind and name on the search path: the first in search
// order wins, and list() says which one is hidden.
#include <doctest/doctest.h>

#include <filesystem>

#include "loader_test_support.hpp"

namespace fs = std::filesystem;
using loader_test::contains;
using loader_test::scoped_env;

namespace {
const fs::path conventional = fs::path(EXTRA_DIR) / "rtkit_lanes_test_fifo.so";
const fs::path duplicate = fs::path(DUPLICATE_DIR) / "rtkit_lanes_test_fifo.so";
}  // namespace

TEST_CASE("two plugins with one name - the earlier directory wins") {
    const scoped_env no_path("RTKIT_PLUGIN_PATH", nullptr);
    CHECK(rtkit::plugin_loader({DUPLICATE_DIR, EXTRA_DIR}).find(RTKIT_PLUGIN_LANES, "test_fifo") ==
          duplicate);
    CHECK(rtkit::plugin_loader({EXTRA_DIR, DUPLICATE_DIR}).find(RTKIT_PLUGIN_LANES, "test_fifo") ==
          conventional);
}

TEST_CASE("RTKIT_PLUGIN_PATH comes after the configured directories") {
    const scoped_env path("RTKIT_PLUGIN_PATH", DUPLICATE_DIR);
    CHECK(rtkit::plugin_loader({EXTRA_DIR}).find(RTKIT_PLUGIN_LANES, "test_fifo") == conventional);
}

TEST_CASE("list() marks the plugin that an earlier one of the same name shadows") {
    const scoped_env no_path("RTKIT_PLUGIN_PATH", nullptr);
    const rtkit::plugin_loader loader({EXTRA_DIR, DUPLICATE_DIR});
    int seen = 0;
    for (const rtkit::plugin_info& info : loader.list()) {
        if (info.name != "test_fifo") {
            CHECK(info.shadowed_by.empty());
            continue;
        }
        ++seen;
        if (info.file == conventional) CHECK(info.shadowed_by.empty());
        if (info.file == duplicate) CHECK(info.shadowed_by == conventional);
    }
    CHECK(seen == 2);
}
