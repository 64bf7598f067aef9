#include "rtkit/config/load.hpp"

#include <charconv>
#include <cstdlib>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/config/input_file.hpp"
#include "rtkit/config/schema.hpp"
#include "toml_reader.hpp"
#include "value_check.hpp"

namespace rtkit::config {
namespace {

// An override has no file: it is reported as source "--set", line 1, with the
// column inside the KEY=VALUE argument.
[[noreturn]] void override_error(std::size_t offset, std::string message) {
    throw config_error({config_diagnostic{"--set", 1, static_cast<std::uint32_t>(offset + 1),
                                          std::move(message)}});
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    while (true) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

std::string_view unquote(std::string_view text) {
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
        return text.substr(1, text.size() - 2);
    return text;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<bool> parse_boolean(std::string_view text) {
    if (text == "true") return true;
    if (text == "false") return false;
    return std::nullopt;
}

std::vector<std::string> to_strings(const std::vector<std::string_view>& parts) {
    std::vector<std::string> items;
    for (auto part : parts)
        items.emplace_back(trim(part));
    return items;
}

/// Reads `text` as `type` into `out`; false when it is not of that type. (An
/// out-parameter: returning optional<config_value> trips a false
/// -Wmaybe-uninitialized in GCC 12 under the sanitizers.)
bool parse_as(value_type type, std::string_view text, config_value& out) {
    switch (type) {
        case value_type::string:
            out = std::string(unquote(text));
            return true;
        case value_type::boolean:
            if (auto b = parse_boolean(text)) {
                out = *b;
                return true;
            }
            return false;
        case value_type::integer:
            if (auto i = parse_integer(text)) {
                out = *i;
                return true;
            }
            return false;
        case value_type::plugin_preference:
            out = to_strings(split(text, ','));
            return true;
        case value_type::path_list:
            out = to_strings(split(text, ':'));
            return true;
    }
    return false;
}

// A plugin option's type is declared by the plugin, which is not known here:
// true/false is a boolean, a number an integer, anything else a string.
option_value parse_plugin_option(std::string_view text) {
    if (auto b = parse_boolean(text)) return *b;
    if (auto i = parse_integer(text)) return *i;
    return std::string(unquote(text));
}

std::vector<std::string_view> dotted_candidates(const std::vector<std::string>& names) {
    return {names.begin(), names.end()};
}

/// Reads `text` as the value of `spec` from a source with no lines (the
/// environment): errors are "SOURCE: error: ...".
void apply_text(runtime_config& config, const key_spec& spec, std::string_view text,
                const std::string& source) {
    auto fail = [&](std::string message) {
        throw config_error({config_diagnostic{source, 0, 0, std::move(message)}});
    };
    config_value value;
    if (!parse_as(spec.type, trim(text), value))
        fail(detail::quoted_name(spec) + " must be " + std::string(describe(spec.type)) +
             ", not '" + std::string(text) + "'");
    if (auto problem = detail::check_value(spec, value, std::filesystem::current_path()))
        fail(std::move(*problem));
    spec.assign(config, value);
}

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

/// The dotted key an override sets ("reactor.plugin"), for its origin.
std::string override_key(std::string_view assignment) {
    return std::string(trim(assignment.substr(0, assignment.find('='))));
}

}  // namespace

runtime_config load_string(std::string_view text, std::string_view source_name,
                           const std::filesystem::path& base_dir) {
    runtime_config config;
    detail::read_toml(text, source_name, base_dir, config);
    return config;
}

runtime_config load_file(const std::filesystem::path& file) {
    return load_string(read_file_text(file), input_name(file), base_dir_of(file));
}

void apply_environment(runtime_config& config, value_origins* origins) {
    for (const key_spec& spec : keys()) {
        const std::string name = environment_name(spec);
        const char* text = std::getenv(name.c_str());
        if (!text) continue;
        apply_text(config, spec, text, "environment variable " + name);
        if (origins) (*origins)[detail::dotted_name(spec)] = "env " + name;
    }
}

loaded_config load(const config_sources& sources) {
    loaded_config result;
    if (sources.file) {
        detail::read_toml(read_file_text(*sources.file), input_name(*sources.file),
                          base_dir_of(*sources.file), result.config, &result.origins);
    }
    if (sources.environment) apply_environment(result.config, &result.origins);
    for (const std::string& assignment : sources.overrides) {
        apply_override(result.config, assignment);
        result.origins[override_key(assignment)] = "--set";
    }
    return result;
}

void apply_override(runtime_config& config, std::string_view assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos)
        override_error(0, "expected KEY=VALUE (e.g. reactor.plugin=epoll), got '" +
                              std::string(assignment) + "'");
    const std::string_view key = trim(assignment.substr(0, eq));
    const std::string_view text = trim(assignment.substr(eq + 1));
    const std::size_t value_column = eq + 1;
    const auto parts = split(key, '.');

    if (parts.size() == 3) {
        const table_spec* table = find_table(parts[0]);
        if (table && table->plugin_kind && !parts[1].empty() && !parts[2].empty()) {
            (config.*(table->plugin_kind)).options[std::string(parts[1])][std::string(parts[2])] =
                parse_plugin_option(text);
            return;
        }
    }
    const key_spec* spec = parts.size() == 2 ? find_key(parts[0], parts[1]) : nullptr;
    if (!spec) {
        const auto names = dotted_key_names();
        override_error(0, "unknown key '" + std::string(key) + "'" +
                              did_you_mean(key, dotted_candidates(names)) +
                              " (a plugin option is TABLE.PLUGIN.OPTION, e.g. "
                              "reactor.epoll.events_per_poll)");
    }
    config_value value;
    if (!parse_as(spec->type, text, value))
        override_error(value_column, detail::quoted_name(*spec) + " must be " +
                                         std::string(describe(spec->type)) + ", not '" +
                                         std::string(text) + "'");
    if (auto problem = detail::check_value(*spec, value, std::filesystem::current_path()))
        override_error(value_column, std::move(*problem));
    spec->assign(config, value);
}

}  // namespace rtkit::config
