#include "value_check.hpp"

#include <algorithm>
#include <vector>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtkit::config::detail {
namespace {

bool is_plugin_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    });
}

std::optional<std::string> check_plugin_names(const key_spec& key,
                                              const std::vector<std::string>& names) {
    if (names.empty())
        return quoted_name(key) + " must name at least one plugin, e.g. " +
               std::string(key.default_toml);
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!is_plugin_name(names[i]))
            return quoted_name(key) + ": " + quote(names[i]) +
                   " is not a plugin name (letters, digits, '_' and '-' only)";
        if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
            names.begin() + static_cast<std::ptrdiff_t>(i))
            return quoted_name(key) + " lists plugin " + quote(names[i]) + " twice";
    }
    return std::nullopt;
}

std::optional<std::string> resolve_paths(const key_spec& key, std::vector<std::string>& paths,
                                         const std::filesystem::path& base_dir) {
    for (auto& path : paths) {
        if (path.empty()) return quoted_name(key) + " holds an empty path";
        std::filesystem::path p(path);
        if (p.is_relative()) p = base_dir / p;
        p = p.lexically_normal();
        if (p.filename().empty() && p != p.root_path()) p = p.parent_path();  // "dir/" -> "dir"
        path = p.string();
    }
    return std::nullopt;
}

}  // namespace

std::string quote(std::string_view text) {
    std::string quoted(1, '\'');
    quoted += text;
    quoted += '\'';
    return quoted;
}

std::string quoted_name(const key_spec& key) {
    return quote(dotted_name(key));
}

std::string quoted_list(const std::vector<std::string_view>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) text += i + 1 == values.size() ? " or " : ", ";
        text += '"' + std::string(values[i]) + '"';
    }
    return text;
}

std::string dotted_name(const key_spec& key) {
    return std::string(key.table) + '.' + std::string(key.name);
}

std::optional<std::string> check_value(const key_spec& key, config_value& value,
                                       const std::filesystem::path& base_dir) {
    switch (key.type) {
        case value_type::string: {
            if (key.allowed.empty()) return std::nullopt;
            const auto& text = std::get<std::string>(value);
            const auto allowed = allowed_option_values(key.allowed);
            if (std::find(allowed.begin(), allowed.end(), text) != allowed.end())
                return std::nullopt;
            return quoted_name(key) + " must be one of " + quoted_list(allowed) + ", not \"" +
                   text + '"' + did_you_mean(text, allowed);
        }
        case value_type::plugin_preference:
            return check_plugin_names(key, std::get<std::vector<std::string>>(value));
        case value_type::path_list:
            return resolve_paths(key, std::get<std::vector<std::string>>(value),
                                 base_dir.empty() ? std::filesystem::current_path() : base_dir);
        case value_type::integer: {
            const std::int64_t number = std::get<std::int64_t>(value);
            if (number >= key.min_value && number <= key.max_value) return std::nullopt;
            return quoted_name(key) + " must be between " + std::to_string(key.min_value) +
                   " and " + std::to_string(key.max_value) + ", not " + std::to_string(number) +
                   " (default: " + std::string(key.default_toml) + ")";
        }
        case value_type::boolean:
            return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace rtkit::config::detail
