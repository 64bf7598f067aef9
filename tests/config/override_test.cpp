#include <doctest/doctest.h>

#include <filesystem>

#include "error_text.hpp"
#include "rtkit/config/load.hpp"

using rtkit::config::apply_override;

TEST_CASE("--set overrides one key over what the file said") {
    auto config = rtkit::config::load_string("[reactor]\nplugin = \"epoll\"\n", "rt.toml");
    apply_override(config, "reactor.plugin=uring");
    CHECK(config.reactor.preference == std::vector<std::string>{"uring"});
    apply_override(config, "reactor.plugin = uring, epoll");
    CHECK(config.reactor.preference == std::vector<std::string>{"uring", "epoll"});
    apply_override(config, "reactor.strict=true");
    CHECK(config.reactor.strict);
    apply_override(config, "runtime.name=\"quoted name\"");
    CHECK(config.name == "quoted name");
    apply_override(config, "runtime.name=bare");
    CHECK(config.name == "bare");
    apply_override(config, "runtime.workers=3");
    CHECK(config.workers == 3);
    apply_override(config, "plugins.allow_insecure=true");
    CHECK(config.allow_insecure_plugins);
    // Untouched keys keep their values.
    CHECK(config.timer.preference == std::vector<std::string>{"wheel"});
}

TEST_CASE("--set sets plugin options with the type their text suggests") {
    rtkit::runtime_config config;
    apply_override(config, "reactor.epoll.events_per_poll=64");
    apply_override(config, "reactor.epoll.edge=false");
    apply_override(config, "timer.wheel.mode=fast");
    CHECK(std::get<std::int64_t>(config.reactor.options["epoll"]["events_per_poll"]) == 64);
    CHECK_FALSE(std::get<bool>(config.reactor.options["epoll"]["edge"]));
    CHECK(std::get<std::string>(config.timer.options["wheel"]["mode"]) == "fast");
}

TEST_CASE("--set resolves relative paths against the current directory") {
    rtkit::runtime_config config;
    apply_override(config, "plugins.search_path=a:/b");
    REQUIRE(config.plugin_search_path.size() == 2);
    CHECK(config.plugin_search_path[0] == std::filesystem::current_path() / "a");
    CHECK(config.plugin_search_path[1] == "/b");
}

TEST_CASE("--set errors point into the argument and leave the configuration unchanged") {
    rtkit::runtime_config config;
    auto error_of = [&](std::string_view assignment) {
        return config_error_text([&] { apply_override(config, assignment); });
    };
    CHECK(error_of("reactr.plugin=epoll")
              .rfind("--set:1:1: error: unknown key 'reactr.plugin'; did you mean "
                     "'reactor.plugin'?",
                     0) == 0);
    CHECK(error_of("reactor.strict=maybe") ==
          "--set:1:16: error: 'reactor.strict' must be a boolean (true or false), not 'maybe'");
    CHECK(error_of("runtime.flavor=multi").find("must be one of") != std::string::npos);
    CHECK(error_of("runtime.workers=-1") ==
          "--set:1:17: error: 'runtime.workers' must be between 0 and 1024, not -1 (default: 1)");
    CHECK(error_of("runtime.workers=two") ==
          "--set:1:17: error: 'runtime.workers' must be an integer, not 'two'");
    CHECK(error_of("reactor.plugin").find("expected KEY=VALUE") != std::string::npos);
    CHECK(error_of("reactor.plugin=").find("is not a plugin name") != std::string::npos);
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
    CHECK_FALSE(config.reactor.strict);
    CHECK(config.flavor == "current_thread");
    CHECK(config.workers == 1);
}
