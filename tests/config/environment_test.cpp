// RTKIT_<TABLE>_<KEY> variables, and the precedence of every layer:
// --set > environment > file > defaults, with where each value came from.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "error_text.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/config/schema.hpp"
#include "temp_toml.hpp"

namespace {

/// Sets an environment variable for one scope.
class scoped_env {
  public:
    scoped_env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
    ~scoped_env() { unsetenv(name_); }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

  private:
    const char* name_;
};

}  // namespace

TEST_CASE("each schema key has an RTKIT_ variable named after its table and key") {
    CHECK(rtkit::config::environment_name(*rtkit::config::find_key("reactor", "plugin")) ==
          "RTKIT_REACTOR_PLUGIN");
    CHECK(rtkit::config::environment_name(*rtkit::config::find_key("plugins", "search_path")) ==
          "RTKIT_PLUGINS_SEARCH_PATH");
}

TEST_CASE("set over environment over file over defaults - each with its origin") {
    const temp_toml file(
        "[runtime]\nname = \"from-file\"\nflavor = \"multi_thread\"\n"
        "[reactor]\nstrict = true\n");
    const scoped_env name("RTKIT_RUNTIME_NAME", "from-env");
    const scoped_env flavor("RTKIT_RUNTIME_FLAVOR", "current_thread");
    const auto loaded = rtkit::config::load({file.path, true, {"runtime.flavor=multi_thread"}});
    CHECK(loaded.config.name == "from-env");
    CHECK(loaded.origins.at("runtime.name") == "env RTKIT_RUNTIME_NAME");
    CHECK(loaded.config.flavor == "multi_thread");
    CHECK(loaded.origins.at("runtime.flavor") == "--set");
    CHECK(loaded.config.reactor.strict);
    CHECK(loaded.origins.at("reactor.strict") == file.path.string() + ":5:10");
    CHECK(loaded.origins.count("timer.plugin") == 0);  // a default
}

TEST_CASE("the environment can be left out") {
    const scoped_env name("RTKIT_RUNTIME_NAME", "from-env");
    CHECK(rtkit::config::load({std::nullopt, false, {}}).config.name == "rtkit");
}

TEST_CASE("a bad environment value names the variable") {
    const scoped_env strict("RTKIT_REACTOR_STRICT", "maybe");
    CHECK(config_error_text([] { rtkit::config::load({}); }) ==
          "environment variable RTKIT_REACTOR_STRICT: error: 'reactor.strict' must be a boolean "
          "(true or false), not 'maybe' (default: false)");
}

TEST_CASE("an environment value is read like a --set value - TOML or a bare string") {
    const scoped_env plugin("RTKIT_REACTOR_PLUGIN", R"(["uring", "epoll"])");
    const scoped_env name("RTKIT_RUNTIME_NAME", "bare name");
    const auto loaded = rtkit::config::load({});
    CHECK(loaded.config.reactor.preference == std::vector<std::string>{"uring", "epoll"});
    CHECK(loaded.config.name == "bare name");
    CHECK(loaded.origins.at("reactor.plugin") == "env RTKIT_REACTOR_PLUGIN");
}

TEST_CASE("an RTKIT_ variable that names nothing is an error with the closest valid name") {
    const scoped_env typo("RTKIT_REACTOR_PLUGN", "epoll");
    CHECK(config_error_text([] { rtkit::config::load({}); }) ==
          "environment variable RTKIT_REACTOR_PLUGN: error: no such variable; did you mean "
          "'RTKIT_REACTOR_PLUGIN'? (each configuration key has one, RTKIT_<TABLE>_<KEY>; the "
          "plugin loader reads RTKIT_PLUGIN_PATH and RTKIT_ALLOW_INSECURE_PLUGINS)");
    const scoped_env loader_typo("RTKIT_PLUGINS_PATH", "/x");
    CHECK(config_error_text([] { rtkit::config::load({}); })
              .find("environment variable RTKIT_PLUGINS_PATH: error: no such variable; did you "
                    "mean 'RTKIT_PLUGIN_PATH'?") != std::string::npos);
    // Left alone when the environment is left out.
    CHECK_NOTHROW(rtkit::config::load({std::nullopt, false, {}}));
}

TEST_CASE("the loader's own variables and test variables are not refused") {
    const scoped_env path("RTKIT_PLUGIN_PATH", "");
    const scoped_env insecure("RTKIT_ALLOW_INSECURE_PLUGINS", "0");
    const scoped_env test("RTKIT_TEST_ANYTHING", "1");
    CHECK_NOTHROW(rtkit::config::load({}));
}
