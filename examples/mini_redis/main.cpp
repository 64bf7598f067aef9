// rtkit-mini-redis: a redis server on rtkit. `rtkit-mini-redis --help` lists
// its options; README.md says how it is built.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "options.hpp"
#include "rtkit/config/config_error.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/runtime.hpp"
#include "server.hpp"

int main(int argc, char** argv) {
    mini_redis::options settings;
    try {
        settings = mini_redis::parse_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const mini_redis::usage_error& e) {
        std::fprintf(stderr, "rtkit-mini-redis: %s (--help lists the options)\n", e.what());
        return 2;
    }
    if (settings.help) {
        std::fputs(mini_redis::usage, stdout);
        return 0;
    }
    rtkit::config::loaded_config loaded;
    try {
        rtkit::config::config_sources sources;
        if (settings.config_file) sources.file = *settings.config_file;
        sources.environment = false;
        sources.overrides = settings.config_overrides;
        loaded = rtkit::config::load(sources);
    } catch (const rtkit::config::config_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    const rtkit::runtime_config& config = loaded.config;
    // A polling time given in the file or by --set is a fixed one; only the
    // current_thread worker polls.
    if (!settings.adaptive_poll)
        settings.adaptive_poll = !loaded.origins.contains("runtime.poll_before_park_us") &&
                                 config.flavor == "current_thread";
    try {
        rtkit::runtime rt(config);
        return mini_redis::serve(rt, settings);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rtkit-mini-redis: %s\n", e.what());
        return 1;
    }
}
