// `--set KEY=VALUE`: VALUE is TOML (every value form works), or a bare
// string when it is not TOML; the result is checked exactly like the same key
// written in a file, after every layer has been merged.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "error_text.hpp"
#include "rtkit/config/load.hpp"
#include "temp_toml.hpp"

using rtkit::config::apply_override;

namespace {

rtkit::config::loaded_config load_with(const std::filesystem::path& file,
                                       std::vector<std::string> overrides) {
    return rtkit::config::load({file, false, std::move(overrides)});
}

}  // namespace

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

TEST_CASE("--set reads every TOML value form") {
    rtkit::runtime_config config;
    apply_override(config, R"(reactor.plugin=["uring","epoll"])");
    CHECK(config.reactor.preference == std::vector<std::string>{"uring", "epoll"});
    apply_override(config, "reactor.plugin = [ 'epoll' ]");
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
    apply_override(config, "runtime.name='a literal string'");
    CHECK(config.name == "a literal string");
    apply_override(config, "runtime.workers=0x10");
    CHECK(config.workers == 16);
    apply_override(config, "runtime.workers=1_0");
    CHECK(config.workers == 10);
    apply_override(config, R"(plugins.search_path=["/x", "/y"])");
    CHECK(config.plugin_search_path == std::vector<std::filesystem::path>{"/x", "/y"});
    // An inline table sets a plugin's options.
    apply_override(config, "reactor.uring={entries=64, sqpoll=true}");
    CHECK(std::get<std::int64_t>(config.reactor.options["uring"]["entries"]) == 64);
    CHECK(std::get<bool>(config.reactor.options["uring"]["sqpoll"]));
}

TEST_CASE("--set sets a plugin option checked against the plugin's declaration") {
    rtkit::runtime_config config;
    apply_override(config, "reactor.epoll.events_per_poll=64");
    apply_override(config, "lanes.three_lane.cancel_streak_limit=8");
    CHECK(std::get<std::int64_t>(config.reactor.options["epoll"]["events_per_poll"]) == 64);
    CHECK(std::get<std::int64_t>(config.lanes.options["three_lane"]["cancel_streak_limit"]) == 8);

    auto error_of = [&](std::string_view assignment) {
        return config_error_text([&] { apply_override(config, assignment); });
    };
    CHECK(error_of("reactor.epoll.events_per_pol=64") ==
          "--set:1:15: error: unknown option 'events_per_pol' in [reactor.epoll]; did you mean "
          "'events_per_poll'? (valid: events_per_poll)");
    CHECK(
        error_of("reactor.epoll.events_per_poll=0")
            .find("--set:1:31: error: option 'events_per_poll' in [reactor.epoll] is 0, out of its "
                  "range") == 0);
    CHECK(error_of("lanes.three_lane.cancel_streak_limit=many") ==
          "--set:1:38: error: option 'cancel_streak_limit' in [lanes.three_lane] must be an "
          "integer, not 'many' (default: 16)");
    CHECK(
        error_of("reactor.selec.wake=pipe")
            .find("--set:1:9: error: [reactor.selec] configures unknown reactor plugin 'selec'") ==
        0);
    CHECK(std::get<std::int64_t>(config.reactor.options["epoll"]["events_per_poll"]) == 64);
}

TEST_CASE("--set resolves relative paths against the current directory") {
    rtkit::runtime_config config;
    apply_override(config, "plugins.search_path=a:/b");
    REQUIRE(config.plugin_search_path.size() == 2);
    CHECK(config.plugin_search_path[0] == std::filesystem::current_path() / "a");
    CHECK(config.plugin_search_path[1] == "/b");
}

TEST_CASE("--set errors read like a file's - point into the argument - change nothing") {
    rtkit::runtime_config config;
    auto error_of = [&](std::string_view assignment) {
        return config_error_text([&] { apply_override(config, assignment); });
    };
    CHECK(error_of("reactr.plugin=epoll") ==
          "--set:1:1: error: unknown key 'reactr' in the top level; did you mean 'reactor'? "
          "(valid: runtime, plugins, blocking, trace, reactor, timer, lanes)");
    CHECK(error_of("reactor.plugn=epoll") ==
          "--set:1:9: error: unknown key 'plugn' in [reactor]; did you mean 'plugin'? (valid: "
          "plugin, strict); a plugin's own options go in [reactor.NAME]");
    CHECK(error_of("reactor.strict=maybe") ==
          "--set:1:16: error: 'reactor.strict' must be a boolean (true or false), not 'maybe' "
          "(default: false)");
    CHECK(error_of("reactor.strict=\"true\"") ==
          "--set:1:16: error: 'reactor.strict' must be a boolean (true or false), not a string "
          "(default: false)");
    CHECK(error_of("runtime.flavor=multi")
              .find("--set:1:16: error: 'runtime.flavor' must be one "
                    "of") == 0);
    CHECK(error_of("runtime.workers=-1") ==
          "--set:1:17: error: 'runtime.workers' must be between 0 and 1024, not -1 (default: 1)");
    CHECK(error_of("runtime.workers = two") ==
          "--set:1:19: error: 'runtime.workers' must be an integer, not 'two' (default: 1)");
    CHECK(error_of("runtime.workers=1.5") ==
          "--set:1:17: error: 'runtime.workers' must be an integer, not a floating-point number "
          "(default: 1)");
    CHECK(error_of(R"(reactor.plugin=["uring", 3])") ==
          "--set:1:26: error: 'reactor.plugin' must be a plugin name or an array of plugin names, "
          "but an element is an integer");
    CHECK(error_of(R"(reactor.plugin=["uring")").find("--set:1:") == 0);
    CHECK(error_of(R"(reactor.plugin=["uring")").find("malformed TOML") != std::string::npos);
    CHECK(error_of("reactor.plugin").find("expected KEY=VALUE") != std::string::npos);
    CHECK(error_of("reactor.plugin=").find("is not a plugin name") != std::string::npos);
    CHECK(config.reactor.preference == std::vector<std::string>{"epoll"});
    CHECK_FALSE(config.reactor.strict);
    CHECK(config.flavor == "current_thread");
    CHECK(config.workers == 1);
}

TEST_CASE("the merged result is validated - a --set can lift a file's strict = true") {
    const temp_toml file("[reactor]\nplugin = [\"nope\", \"epoll\"]\nstrict = true\n");
    const auto text = config_error_text([&] { load_with(file.path, {}); });
    CHECK(text.find(file.path.string() + ":2:10: error: unknown reactor plugin 'nope'") == 0);

    const auto lifted = load_with(file.path, {"reactor.strict=false"});
    CHECK_FALSE(lifted.config.reactor.strict);
    CHECK(lifted.config.reactor.preference == std::vector<std::string>{"nope", "epoll"});
    CHECK(lifted.origins.at("reactor.strict") == "--set");
    CHECK(lifted.origins.at("reactor.plugin") == file.path.string() + ":2:10");

    // And the other way: a file that is fine alone, made invalid by a --set.
    const temp_toml loose("[reactor]\nplugin = [\"nope\", \"epoll\"]\n");
    CHECK(config_error_text([&] {
              load_with(loose.path, {"reactor.strict=true"});
          }).find(loose.path.string() + ":2:10: error: unknown reactor plugin 'nope'") == 0);
}

TEST_CASE("a --set that fixes a file's bad value makes the merged result valid") {
    const temp_toml file("[runtime]\nworkers = -1\n[reactor.epoll]\nevents_per_pol = 3\n");
    CHECK_FALSE(config_error_text([&] { load_with(file.path, {}); }).empty());
    // Replacing the value replaces the problem; the misspelt option remains.
    const auto text = config_error_text([&] { load_with(file.path, {"runtime.workers=1"}); });
    CHECK(text == file.path.string() +
                      ":4:1: error: unknown option 'events_per_pol' in [reactor.epoll]; did you "
                      "mean 'events_per_poll'? (valid: events_per_poll)");
}

TEST_CASE("errors of several layers are listed file first then each --set in order") {
    const temp_toml file("[runtime]\nworkers = -1\n");
    const auto text = config_error_text([&] {
        load_with(file.path, {"runtime.name=1", "reactor.strict=maybe"});
    });
    CHECK(text == file.path.string() +
                      ":2:11: error: 'runtime.workers' must be between 0 and 1024, not -1 "
                      "(default: 1)\n"
                      "--set:1:14: error: 'runtime.name' must be a string, not an integer "
                      "(default: \"rtkit\")\n"
                      "--set:1:16: error: 'reactor.strict' must be a boolean (true or false), not "
                      "'maybe' (default: false)");
}
