// config/default.toml and the schema must agree with runtime_config{}: the file
// is documentation users copy, and the schema generates the reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config_equal.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/config/schema.hpp"
#include "rtkit/plugin_loader.hpp"

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

/// The type column of config/README.md's key table for `key`.
std::string type_cell(const rtkit::config::key_spec& key) {
    using rtkit::config::value_type;
    switch (key.type) {
        case value_type::string: {
            if (key.allowed.empty()) return "string";
            std::string cell;  // "a|b" -> `"a"` or `"b"`
            std::string_view rest = key.allowed;
            while (true) {
                const auto bar = rest.find('|');
                cell += "`\"" + std::string(rest.substr(0, bar)) + "\"`";
                if (bar == std::string_view::npos) return cell;
                cell += " or ";
                rest.remove_prefix(bar + 1);
            }
        }
        case value_type::boolean:
            return "boolean";
        case value_type::integer:
            return "integer, " + std::to_string(key.min_value) + ".." +
                   std::to_string(key.max_value);
        case value_type::plugin_preference:
            return "name or array of names";
        case value_type::path_list:
            return "array of paths";
    }
    return "?";
}

/// The README row for `key`: key, type, default and the schema's help text.
std::string reference_row(const rtkit::config::key_spec& key) {
    return "| `" + std::string(key.table) + "." + std::string(key.name) + "` | " + type_cell(key) +
           " | `" + std::string(key.default_toml) + "` | " + std::string(key.help) + " |";
}

/// The rows of the key table under "## Keys" in config/README.md, one per line.
std::string key_table_rows(const std::string& readme) {
    std::istringstream lines(readme);
    std::string line, rows;
    bool in_keys = false;
    while (std::getline(lines, line)) {
        if (line.rfind("## ", 0) == 0) in_keys = line == "## Keys";
        if (in_keys && line.rfind("| `", 0) == 0) rows += line + "\n";
    }
    return rows;
}

/// "timer" or "lanes" for those kinds, else empty.
std::string table_of(rtkit_plugin_kind kind) {
    return kind == RTKIT_PLUGIN_TIMER ? "timer" : kind == RTKIT_PLUGIN_LANES ? "lanes" : "";
}

/// The built-in timer drivers and lane policies, timers first, each kind by name.
std::vector<rtkit::plugin_info> builtin_timer_and_lane_plugins() {
    std::vector<rtkit::plugin_info> plugins;
    for (rtkit::plugin_info& info : rtkit::plugin_loader().list())
        if (!table_of(info.kind).empty()) plugins.push_back(std::move(info));
    std::sort(plugins.begin(), plugins.end(), [](const auto& a, const auto& b) {
        return std::pair(a.kind, a.name) < std::pair(b.kind, b.name);
    });
    return plugins;
}

/// The commented plugin tables of default.toml: "[timer.wheel]" then its
/// "key = value" lines, one per line, comments dropped.
std::string commented_plugin_tables(const std::string& text) {
    std::istringstream lines(text);
    std::string line, tables;
    bool in_table = false;
    while (std::getline(lines, line)) {
        if (line.rfind("# ", 0) != 0) {
            in_table = false;
            continue;
        }
        std::string body = line.substr(2, line.find(" #", 2) - 2);
        while (!body.empty() && body.back() == ' ')
            body.pop_back();
        if (body.rfind("[timer.", 0) == 0 || body.rfind("[lanes.", 0) == 0) in_table = true;
        if (body.rfind("[reactor.", 0) == 0) in_table = false;
        if (in_table) tables += body + "\n";
    }
    return tables;
}

}  // namespace

TEST_CASE("config/default.toml shows each built-in timer and lane plugin's options and defaults") {
    std::string expected;
    for (const rtkit::plugin_info& info : builtin_timer_and_lane_plugins()) {
        expected += "[" + table_of(info.kind) + "." + info.name + "]\n";
        for (const rtkit::plugin_option_info& o : info.options)
            if (!rtkit::is_test_only_option(o.name))
                expected += o.name + " = " + o.default_value + "\n";
    }
    REQUIRE_FALSE(expected.empty());
    // Compared table by table, in any order.
    const std::string listed = commented_plugin_tables(read_all(default_file));
    auto tables = [](const std::string& text) {
        std::vector<std::string> out;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
            if (line.rfind('[', 0) == 0)
                out.push_back(line + "\n");
            else if (!out.empty())
                out.back() += line + "\n";
        std::sort(out.begin(), out.end());
        return out;
    };
    CHECK(tables(listed) == tables(expected));
}

TEST_CASE("config/README.md's timer and lane plugin option rows are the plugins' declarations") {
    std::string expected;
    for (const rtkit::plugin_info& info : builtin_timer_and_lane_plugins())
        for (const rtkit::plugin_option_info& o : info.options) {
            if (rtkit::is_test_only_option(o.name)) continue;
            REQUIRE(o.type == RTKIT_OPTION_INT);  // the rows below render integers only
            expected += "| `" + table_of(info.kind) + "." + info.name + "." + o.name +
                        "` | integer, " + std::to_string(o.min_value) + ".." +
                        std::to_string(o.max_value) + " | `" + o.default_value + "` | " + o.help +
                        " |\n";
        }
    std::istringstream lines(read_all(RTKIT_CONFIG_DIR "/README.md"));
    std::string line, rows;
    bool in_section = false;
    while (std::getline(lines, line)) {
        if (line.rfind("## ", 0) == 0) in_section = line == "## Timer and lane plugin options";
        if (in_section && line.rfind("| `", 0) == 0) rows += line + "\n";
    }
    // On a mismatch doctest prints both: paste the expected rows into the README.
    CHECK(rows == expected);
}

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

TEST_CASE("config/README.md's key table is the schema's - row for row") {
    const std::string text = read_all(RTKIT_CONFIG_DIR "/README.md");
    REQUIRE_FALSE(text.empty());
    std::string expected;
    for (const auto& key : rtkit::config::keys())
        expected += reference_row(key) + "\n";
    // On a mismatch doctest prints both: paste the expected rows into the README.
    CHECK(key_table_rows(text) == expected);
}
