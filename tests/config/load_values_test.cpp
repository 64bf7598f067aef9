#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "rtkit/config/load.hpp"

using rtkit::config::load_string;

TEST_CASE("an empty document gives the defaults") {
    const auto config = load_string("", "empty.toml");
    CHECK(config.flavor == "current_thread");
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
    CHECK(config.timer.preference == std::vector<std::string>{"wheel"});
    CHECK(config.lanes.preference == std::vector<std::string>{"three_lane"});
}

TEST_CASE("every key is read") {
    const auto config = load_string(R"(
[runtime]
flavor = "multi_thread"   # accepted by the schema; the kernel decides if it can run it
workers = 4
name = "bench"
huge_pages = true
[plugins]
allow_insecure = true
[blocking]
max_threads = 3
keep_alive_ms = 250
[reactor]
plugin = "epoll"
strict = true
[timer]
plugin = ["heap", "wheel"]  # heap is not built: a fallback list may name it
[lanes]
plugin = "three_lane"
)",
                                    "all.toml");
    CHECK(config.flavor == "multi_thread");
    CHECK(config.workers == 4);
    CHECK(config.name == "bench");
    CHECK(config.huge_pages);
    CHECK(config.allow_insecure_plugins);
    CHECK(config.blocking.max_threads == 3);
    CHECK(config.blocking.keep_alive == std::chrono::milliseconds(250));
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
    CHECK(config.reactor.strict);
    CHECK(config.timer.preference == std::vector<std::string>{"heap", "wheel"});
    CHECK(config.lanes.preference == std::vector<std::string>{"three_lane"});
}

TEST_CASE("a preference array keeps its order") {
    const auto config =
        load_string("[reactor]\nplugin = [\"uring\", \"epoll\", \"poll\"]\n", "pref.toml");
    CHECK(config.reactor.preference == std::vector<std::string>{"uring", "epoll", "poll"});
}

TEST_CASE("plugin sub-tables become that plugin's options") {
    const auto config = load_string(R"(
[reactor.epoll]
events_per_poll = 64
[timer.wheel]
tick_us = 500
[lanes.three_lane]
cancel_streak_limit = 4
)",
                                    "options.toml");
    CHECK(std::get<std::int64_t>(config.reactor.options.at("epoll").at("events_per_poll")) == 64);
    CHECK(std::get<std::int64_t>(config.timer.options.at("wheel").at("tick_us")) == 500);
    CHECK(std::get<std::int64_t>(config.lanes.options.at("three_lane").at("cancel_streak_limit")) ==
          4);
    // Selecting a plugin is separate from configuring one.
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
}

TEST_CASE("relative search paths are resolved against the file's directory") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("rtkit-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "conf");
    const auto file = dir / "conf" / "rt.toml";
    {
        std::ofstream out(file);
        out << "[plugins]\nsearch_path = [\"plugins\", \"../shared/./p\", \"/opt/rtkit\"]\n";
    }
    const auto config = rtkit::config::load_file(file);
    std::filesystem::remove_all(dir);
    REQUIRE(config.plugin_search_path.size() == 3);
    CHECK(config.plugin_search_path[0] == dir / "conf" / "plugins");
    CHECK(config.plugin_search_path[1] == dir / "shared" / "p");
    CHECK(config.plugin_search_path[2] == "/opt/rtkit");
}

TEST_CASE("load_string resolves relative search paths against the given base directory") {
    const auto config = load_string("[plugins]\nsearch_path = [\"p\"]\n", "x.toml", "/base/dir");
    CHECK(config.plugin_search_path == std::vector<std::filesystem::path>{"/base/dir/p"});
}
