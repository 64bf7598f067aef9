// rtkit::config::make_runtime: a runtime from a TOML file in one call, with
// the RTKIT_* layer only when asked for.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "error_text.hpp"
#include "rtkit/config/make_runtime.hpp"
#include "temp_toml.hpp"

namespace {

rtkit::task<int> forty_two() {
    co_await rtkit::sleep(std::chrono::milliseconds(1));
    co_return 42;
}

}  // namespace

TEST_CASE("make_runtime - the file's plugins run a task - RTKIT_ variables only when asked") {
    const temp_toml file("[reactor]\nplugin = \"uring\"\nstrict = true\n");
    setenv("RTKIT_REACTOR_PLUGIN", "epoll", 1);
    {
        rtkit::runtime rt = rtkit::config::make_runtime(file.path);
        CHECK(rt.description().reactor.find("uring") != std::string::npos);
        CHECK(rt.block_on(forty_two()) == 42);
    }
    {
        rtkit::runtime rt =
            rtkit::config::make_runtime(file.path, rtkit::config::environment_layer::apply);
        CHECK(rt.description().reactor.find("epoll") != std::string::npos);
    }
    unsetenv("RTKIT_REACTOR_PLUGIN");
}

TEST_CASE("make_runtime - a bad file is a config_error with its position") {
    const temp_toml file("[reactor]\nstrict = maybe\n");
    CHECK(config_error_text([&] {
              rtkit::config::make_runtime(file.path);
          }).find(file.path.string() + ":2:10: error: malformed TOML") == 0);
}
