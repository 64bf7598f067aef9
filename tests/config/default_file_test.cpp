// config/default.toml and the schema must agree with runtime_config{}: the file
// is documentation users copy, and the schema generates the reference.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "config_equal.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/config/schema.hpp"

namespace {

const std::string default_file = RTKIT_CONFIG_DIR "/default.toml";

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The "key = value" text under table [table] in a TOML file, without comment.
std::string value_line(const std::string& text, std::string_view table, std::string_view key) {
    std::istringstream lines(text);
    std::string line, current;
    while (std::getline(lines, line)) {
        if (line.rfind('[', 0) == 0) {
            current = line.substr(1, line.find(']') - 1);
        } else if (current == table && line.rfind(std::string(key) + " = ", 0) == 0) {
            std::string value = line.substr(key.size() + 3);
            value = value.substr(0, value.find('#'));
            while (!value.empty() && value.back() == ' ')
                value.pop_back();
            return value;
        }
    }
    return {};
}

}  // namespace

TEST_CASE("config/default.toml loads to exactly the built-in defaults") {
    check_same_config(rtkit::config::load_file(default_file), rtkit::runtime_config{});
}

TEST_CASE("config/default.toml lists every schema key with the schema's default") {
    const std::string text = read_all(default_file);
    REQUIRE_FALSE(text.empty());
    for (const auto& key : rtkit::config::keys()) {
        CAPTURE(key.table);
        CAPTURE(key.name);
        CHECK(value_line(text, key.table, key.name) == key.default_toml);
    }
}

TEST_CASE("the schema's defaults equal runtime_config{}") {
    std::string toml;
    std::string_view table;
    for (const auto& key : rtkit::config::keys()) {
        if (key.table != table) {
            table = key.table;
            toml += '[';
            toml += table;
            toml += "]\n";
        }
        toml += std::string(key.name) + " = " + std::string(key.default_toml) + "\n";
    }
    check_same_config(rtkit::config::load_string(toml, "schema-defaults.toml"),
                      rtkit::runtime_config{});
}

TEST_CASE("every key has help and belongs to a known table") {
    for (const auto& key : rtkit::config::keys()) {
        CAPTURE(key.name);
        CHECK_FALSE(key.help.empty());
        CHECK(rtkit::config::find_table(key.table) != nullptr);
    }
}

TEST_CASE("config/README.md documents every schema key") {
    const std::string text = read_all(RTKIT_CONFIG_DIR "/README.md");
    REQUIRE_FALSE(text.empty());
    for (const auto& key : rtkit::config::keys()) {
        const std::string cell =
            "| `" + std::string(key.table) + "." + std::string(key.name) + "` |";
        CAPTURE(cell);
        CHECK(text.find(cell) != std::string::npos);
    }
}
