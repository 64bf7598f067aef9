#include "rtkit/config/load.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string_view>

#include "assignment.hpp"
#include "rtkit/config/closest_match.hpp"
#include "rtkit/config/input_file.hpp"
#include "rtkit/config/schema.hpp"
#include "toml_reader.hpp"

namespace rtkit::config {
namespace {

std::string read_file_text(const std::filesystem::path& file) {
    try {
        return read_input_file(file);
    } catch (const input_error& e) {
        throw config_error(
            {config_diagnostic{input_name(file), 0, 0,
                               std::string("cannot read the configuration file: ") + e.what()}});
    }
}

/// Where relative paths in `file` are resolved: its directory (the current
/// directory for standard input).
std::filesystem::path base_dir_of(const std::filesystem::path& file) {
    if (file == "-") return std::filesystem::current_path();
    return std::filesystem::absolute(file).parent_path();
}

/// The RTKIT_ variables the plugin loader reads itself (kernel/README.md).
constexpr std::string_view loader_variables[] = {"RTKIT_PLUGIN_PATH",
                                                 "RTKIT_ALLOW_INSECURE_PLUGINS"};
/// Variables whose names start so belong to tests, as test_ options do.
constexpr std::string_view test_variable_prefix = "RTKIT_TEST_";

/// The names of the RTKIT_ variables that are set, sorted.
std::vector<std::string> rtkit_variables_set() {
    std::vector<std::string> names;
    for (char** entry = environ; *entry; ++entry) {
        const std::string_view text(*entry);
        if (text.starts_with("RTKIT_")) names.emplace_back(text.substr(0, text.find('=')));
    }
    std::sort(names.begin(), names.end());
    return names;
}

/// Every RTKIT_<TABLE>_<KEY> variable that is set, as an assignment; then
/// each other RTKIT_ variable, which names nothing (a misspelling, most
/// likely), as a refusal that names the closest valid variable.
std::vector<detail::assignment> environment_assignments() {
    std::vector<detail::assignment> assignments;
    std::vector<std::string> known(std::begin(loader_variables), std::end(loader_variables));
    for (const key_spec& spec : keys()) {
        const std::string name = environment_name(spec);
        known.push_back(name);
        const char* text = std::getenv(name.c_str());
        if (!text) continue;
        const std::string key = std::string(spec.table) + '.' + std::string(spec.name);
        assignments.push_back(detail::make_assignment(
            key + '=' + text, "environment variable " + name, "env " + name, false));
    }
    const std::vector<std::string_view> candidates(known.begin(), known.end());
    for (const std::string& name : rtkit_variables_set()) {
        if (std::find(known.begin(), known.end(), name) != known.end() ||
            name.starts_with(test_variable_prefix))
            continue;
        detail::assignment unknown;
        unknown.source = "environment variable " + name;
        unknown.refusal = "no such variable" + did_you_mean(name, candidates) +
                          " (each configuration key has one, RTKIT_<TABLE>_<KEY>; the plugin "
                          "loader reads RTKIT_PLUGIN_PATH and RTKIT_ALLOW_INSECURE_PLUGINS)";
        assignments.push_back(std::move(unknown));
    }
    return assignments;
}

detail::assignment override_assignment(std::string_view text) {
    return detail::make_assignment(text, "--set", "--set", true);
}

}  // namespace

runtime_config load_string(std::string_view text, std::string_view source_name,
                           const std::filesystem::path& base_dir) {
    runtime_config config;
    const detail::toml_file file{text, std::string(source_name),
                                 base_dir.empty() ? std::filesystem::current_path() : base_dir};
    detail::read_toml(&file, {}, config);
    return config;
}

runtime_config load_file(const std::filesystem::path& file) {
    return load_string(read_file_text(file), input_name(file), base_dir_of(file));
}

void apply_environment(runtime_config& config, value_origins* origins) {
    detail::read_toml(nullptr, environment_assignments(), config, origins);
}

loaded_config load(const config_sources& sources) {
    std::vector<detail::assignment> assignments;
    if (sources.environment) assignments = environment_assignments();
    for (const std::string& text : sources.overrides)
        assignments.push_back(override_assignment(text));

    loaded_config result;
    if (sources.file) {
        const std::string text = read_file_text(*sources.file);
        const detail::toml_file file{text, input_name(*sources.file), base_dir_of(*sources.file)};
        detail::read_toml(&file, assignments, result.config, &result.origins,
                          sources.check_plugins);
    } else {
        detail::read_toml(nullptr, assignments, result.config, &result.origins,
                          sources.check_plugins);
    }
    return result;
}

void apply_override(runtime_config& config, std::string_view assignment) {
    const detail::assignment a = override_assignment(assignment);
    detail::read_toml(nullptr, {&a, 1}, config);
}

}  // namespace rtkit::config
