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
    rtkit::runtime_config config;
    try {
        if (settings.config_file) config = rtkit::config::load_file(*settings.config_file);
        for (const std::string& assignment : settings.config_overrides)
            rtkit::config::apply_override(config, assignment);
    } catch (const rtkit::config::config_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    try {
        rtkit::runtime rt(config);
        return mini_redis::serve(rt, settings);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rtkit-mini-redis: %s\n", e.what());
        return 1;
    }
}
