#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "error_text.hpp"
#include "rtkit/config/load.hpp"

TEST_CASE("an unknown top-level table names its position and suggests the closest one") {
    const auto text = error_of("[runtime]\nname = \"x\"\n[reactr]\nplugin = \"epoll\"\n");
    CHECK(text.rfind("rt.toml:3:2: error: unknown key 'reactr' in the top level; did you mean "
                     "'reactor'?",
                     0) == 0);
}

TEST_CASE("an unknown top-level key written as key = value points at the key") {
    const auto text = error_of("\n\nreactr = 1\n");
    CHECK(text.rfind("rt.toml:3:1: error: unknown key 'reactr' in the top level; did you mean "
                     "'reactor'?",
                     0) == 0);
}

TEST_CASE("an unknown key inside a table suggests a key of that table and lists them") {
    const auto text = error_of("[runtime]\nflavour = \"current_thread\"\n");
    CHECK(text ==
          "rt.toml:2:1: error: unknown key 'flavour' in [runtime]; did you mean 'flavor'? "
          "(valid: flavor, workers, clock, name, huge_pages, poll_before_park_us)");
}

TEST_CASE("a plain unknown key in a plugin table is not mistaken for plugin options") {
    const auto text = error_of("[reactor]\nplugn = \"epoll\"\n");
    CHECK(text.find("rt.toml:2:1: error: unknown key 'plugn' in [reactor]; did you mean "
                    "'plugin'?") == 0);
    CHECK(text.find("[reactor.NAME]") != std::string::npos);
}

TEST_CASE("malformed TOML reports the parser's position") {
    const auto text = error_of("[runtime]\nname = \n");
    CHECK(text.rfind("rt.toml:2:8: error: malformed TOML: ", 0) == 0);
    const auto unterminated = error_of("[runtime]\nname = \"abc\n");
    CHECK(unterminated.rfind("rt.toml:2:", 0) == 0);
    CHECK(unterminated.find("malformed TOML") != std::string::npos);
}

TEST_CASE("wrong types name the key - the expected type - what was found and the default") {
    CHECK(error_of("[reactor]\nstrict = \"yes\"\n") ==
          "rt.toml:2:10: error: 'reactor.strict' must be a boolean (true or false), not a "
          "string (default: false)");
    CHECK(error_of("[runtime]\nname = 7\n") ==
          "rt.toml:2:8: error: 'runtime.name' must be a string, not an integer (default: "
          "\"rtkit\")");
    CHECK(error_of("[reactor]\nplugin = [\"epoll\", 3]\n") ==
          "rt.toml:2:20: error: 'reactor.plugin' must be a plugin name or an array of plugin "
          "names, but an element is an integer");
    CHECK(error_of("runtime = 3\n") ==
          "rt.toml:1:11: error: 'runtime' must be a table, not an "
          "integer");
    CHECK(error_of("[plugins]\nsearch_path = \"dir\"\n") ==
          "rt.toml:2:15: error: 'plugins.search_path' must be an array of directory paths, not "
          "a string (default: [])");
}

TEST_CASE("a value outside a closed set lists the allowed values and suggests one") {
    CHECK(error_of("[runtime]\nflavor = \"curent_thread\"\n") ==
          "rt.toml:2:10: error: 'runtime.flavor' must be one of \"current_thread\" or "
          "\"multi_thread\", not \"curent_thread\"; did you mean 'current_thread'?");
}

TEST_CASE("an integer out of its range names the range and the default") {
    CHECK(error_of("[runtime]\nworkers = -1\n") ==
          "rt.toml:2:11: error: 'runtime.workers' must be between 0 and 1024, not -1 (default: 1)");
    CHECK(error_of("[runtime]\nworkers = 1025\n").find("must be between 0 and 1024, not 1025") !=
          std::string::npos);
    CHECK(error_of("[blocking]\nmax_threads = 0\n") ==
          "rt.toml:2:15: error: 'blocking.max_threads' must be between 1 and 65536, not 0 "
          "(default: 512)");
    CHECK(error_of("[blocking]\nkeep_alive_ms = -5\n")
              .find("'blocking.keep_alive_ms' must be between 0 and 86400000, not -5") !=
          std::string::npos);
    CHECK(error_of("[runtime]\nworkers = \"2\"\n") ==
          "rt.toml:2:11: error: 'runtime.workers' must be an integer, not a string (default: 1)");
    CHECK(error_of("[plugins]\nallow_insecure = 1\n") ==
          "rt.toml:2:18: error: 'plugins.allow_insecure' must be a boolean (true or false), not "
          "an integer (default: false)");
}

TEST_CASE("plugin preferences must name plugins - each once") {
    CHECK(error_of("[timer]\nplugin = []\n").find("must name at least one plugin") !=
          std::string::npos);
    CHECK(
        error_of("[timer]\nplugin = [\"wheel\", \"wheel\"]\n").find("lists plugin 'wheel' twice") !=
        std::string::npos);
    CHECK(error_of("[lanes]\nplugin = \"three lane\"\n").find("is not a plugin name") !=
          std::string::npos);
}

TEST_CASE("plugin option values must be booleans - integers or strings") {
    CHECK(error_of("[reactor.epoll]\nratio = 0.5\n") ==
          "rt.toml:2:9: error: option 'ratio' in [reactor.epoll] must be a boolean, an integer "
          "or a string, not a floating-point number");
}

TEST_CASE("every problem is reported - in file order") {
    const auto text = error_of("[runtime]\nname = 1\nflavr = \"x\"\n[timr]\n");
    CHECK(text.find("rt.toml:2:8: error:") == 0);
    const auto second = text.find("\nrt.toml:3:1: error: unknown key 'flavr'");
    const auto third = text.find("\nrt.toml:4:2: error: unknown key 'timr'");
    CHECK(second != std::string::npos);
    CHECK(third != std::string::npos);
    CHECK(second < third);
}

TEST_CASE("a missing file is an error naming the file") {
    const auto text =
        config_error_text([] { rtkit::config::load_file("/nonexistent/dir/runtime.toml"); });
    CHECK(text ==
          "/nonexistent/dir/runtime.toml: error: cannot read the configuration file: No "
          "such file or directory");
}

TEST_CASE("a directory given as the configuration file is an error - not the defaults") {
    const auto dir = std::filesystem::temp_directory_path();
    const auto text = config_error_text([&] { rtkit::config::load_file(dir); });
    CHECK(text == dir.string() +
                      ": error: cannot read the configuration file: it is a directory, not a "
                      "regular file; give a file, or '-' for standard input");
    CHECK(config_error_text([&] { rtkit::config::load({dir, false, {}}); }) == text);
}
