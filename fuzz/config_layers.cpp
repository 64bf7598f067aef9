// libFuzzer harness: the configuration layers on any text. The input is a
// TOML file, optionally preceded by lines "--set KEY=VALUE": the file is
// loaded over the defaults (TOML, schema, plugin table checks against the
// built-in plugins), then each override is applied in order, as rtctl does.
//
// Rules checked besides "no crash, no leak, no undefined behaviour": the only
// exception is config_error, with at least one diagnostic, each naming its
// source with a position inside it; a refused override leaves the
// configuration unchanged; and a loaded file, written back as TOML (what
// `rtctl config show` prints), loads again to the same configuration.
//
// The loader runs every plugin library it finds on the search path (its
// static constructors run at dlopen). So that a fuzz input cannot make it load
// arbitrary system libraries, the file's relative paths resolve against an
// empty directory, and the harness skips inputs whose search path could leave
// it: absolute paths, '..' in a path, and any override that sets the search
// path or holds '/', '\' or '..'.
#include <unistd.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "builtin_plugins.hpp"
#include "fuzz_support.hpp"
#include "rtkit/config/config_error.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/config/schema.hpp"
#include "rtkit/config/toml_text.hpp"
#include "text_positions.hpp"

using rtkit_fuzz::expect;
namespace fs = std::filesystem;
namespace config = rtkit::config;

namespace {

constexpr std::string_view source_name = "fuzz.toml";
constexpr std::string_view override_prefix = "--set ";

/// An empty directory that the file's relative search paths resolve against.
fs::path work_dir;

bool path_stays_inside(std::string_view text) {
    const fs::path path(text);
    if (!path.is_relative()) return false;
    for (const fs::path& part : path)
        if (part == "..") return false;
    return true;
}

/// False when `toml` sets a plugins.search_path that could leave work_dir.
/// Reads the document with toml++ as the loader does, escapes decoded.
bool search_path_stays_inside(std::string_view toml) {
    toml::table root;
    try {
        root = toml::parse(toml, source_name);
    } catch (const toml::parse_error&) {
        return true;  // the loader refuses it before any plugin is looked for
    }
    const toml::node* paths = root["plugins"]["search_path"].node();
    if (!paths) return true;
    if (const auto* one = paths->as_string()) return path_stays_inside(one->get());
    if (const auto* many = paths->as_array())
        for (const toml::node& element : *many)
            if (const auto* s = element.as_string(); s && !path_stays_inside(s->get()))
                return false;
    return true;
}

bool override_stays_inside(std::string_view assignment) {
    return assignment.find_first_of("/\\") == std::string_view::npos &&
           assignment.find("..") == std::string_view::npos &&
           assignment.find("search_path") == std::string_view::npos;
}

void check_error(const config::config_error& e, std::string_view source, std::size_t lines) {
    expect(!e.diagnostics().empty(), "a config_error holds at least one diagnostic");
    for (const config::config_diagnostic& d : e.diagnostics()) {
        expect(d.source == source, "a diagnostic names its source", d.format());
        expect(d.line <= lines, "a diagnostic's line lies inside its source", d.format());
        expect(!d.message.empty(), "a diagnostic says what is wrong", d.format());
    }
}

bool same_selection(const rtkit::plugin_selection& a, const rtkit::plugin_selection& b) {
    return a.preference == b.preference && a.strict == b.strict && a.options == b.options;
}

bool same_config(const rtkit::runtime_config& a, const rtkit::runtime_config& b) {
    return a.flavor == b.flavor && a.workers == b.workers && a.name == b.name &&
           a.plugin_search_path == b.plugin_search_path &&
           a.allow_insecure_plugins == b.allow_insecure_plugins &&
           same_selection(a.reactor, b.reactor) && same_selection(a.timer, b.timer) &&
           same_selection(a.lanes, b.lanes);
}

/// `c` as a TOML file: every key of the schema, then each plugin's options.
std::string as_toml(const rtkit::runtime_config& c) {
    std::string text;
    for (const config::table_spec& table : config::tables()) {
        text += "[" + std::string(table.name) + "]\n";
        for (const config::key_spec& key : config::keys())
            if (key.table == table.name)
                text +=
                    std::string(key.name) + " = " + config::to_toml(key.read(c), key.type) + "\n";
        if (!table.plugin_kind) continue;
        for (const auto& [plugin, options] : (c.*(table.plugin_kind)).options) {
            text += "[" + std::string(table.name) + "." + config::toml_string(plugin) + "]\n";
            for (const auto& [key, value] : options)
                text += config::toml_string(key) + " = " + config::to_toml(value) + "\n";
        }
    }
    return text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // The plugins found are the built-in ones alone, whatever the environment.
    ::unsetenv("RTKIT_PLUGIN_PATH");
    ::unsetenv("RTKIT_ALLOW_INSECURE_PLUGINS");
    work_dir = fs::temp_directory_path() / ("rtkit_fuzz_config." + std::to_string(::getpid()));
    fs::create_directories(work_dir);
    rtkit_fuzz::keep_builtin_plugins_loaded();
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(work_dir, ec);
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> overrides;
    while (rest.starts_with(override_prefix)) {
        const std::size_t end = std::min(rest.find('\n'), rest.size());
        overrides.push_back(rest.substr(override_prefix.size(), end - override_prefix.size()));
        rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    const std::string_view toml = rest;
    if (!search_path_stays_inside(toml)) return -1;
    for (std::string_view o : overrides)
        if (!override_stays_inside(o)) return -1;

    rtkit::runtime_config loaded;
    try {
        loaded = config::load_string(toml, source_name, work_dir);
        const std::string written = as_toml(loaded);
        try {
            const rtkit::runtime_config again = config::load_string(written, "written.toml");
            expect(same_config(loaded, again),
                   "a loaded configuration written back as TOML loads to the same values", written);
        } catch (const config::config_error& e) {
            rtkit_fuzz::fuzz_failure("a loaded configuration written back as TOML loads again",
                                     written + "\n" + e.what());
        }
    } catch (const config::config_error& e) {
        check_error(e, source_name, rtkit_fuzz::line_count(toml));
    }

    for (std::string_view assignment : overrides) {
        const rtkit::runtime_config before = loaded;
        try {
            config::apply_override(loaded, assignment);
        } catch (const config::config_error& e) {
            check_error(e, "--set", 1);
            expect(same_config(before, loaded), "a refused override changes nothing",
                   std::string(assignment));
        }
    }
    return 0;
}
