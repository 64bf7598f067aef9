#include "assignment.hpp"

#include <vector>

#include "rtkit/config/config_error.hpp"
#include "rtkit/config/schema.hpp"
#include "rtkit/config/toml_text.hpp"

namespace rtkit::config::detail {
namespace {

constexpr std::string_view blanks = " \t";

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(blanks);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    while (true) {
        const auto at = text.find(separator);
        parts.push_back(trim(text.substr(0, at)));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

/// The schema key `key` names ("reactor.plugin"), or nullptr.
const key_spec* schema_key(std::string_view key) {
    const auto parts = split(key, '.');
    return parts.size() == 2 ? find_key(parts[0], parts[1]) : nullptr;
}

/// `value` as a TOML string, or as an array of strings for a list-valued key.
std::string bare_value_as_toml(const key_spec* spec, std::string_view value) {
    const bool list = spec && (spec->type == value_type::plugin_preference ||
                               spec->type == value_type::path_list);
    if (!list) return toml_string(value);
    const char separator = spec->type == value_type::plugin_preference ? ',' : ':';
    std::string array = "[";
    for (const std::string_view item : split(value, separator)) {
        if (array.size() > 1) array += ", ";
        array += toml_string(item);
    }
    return array + "]";
}

}  // namespace

assignment make_assignment(std::string_view text, std::string source, std::string origin,
                           bool has_columns) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos)
        throw config_error({config_diagnostic{
            source, has_columns ? 1u : 0u, has_columns ? 1u : 0u,
            "expected KEY=VALUE (e.g. reactor.plugin=epoll), got '" + std::string(text) + "'"}});
    const std::string_view after_eq = text.substr(eq + 1);
    const std::string_view value = trim(after_eq);
    const std::size_t value_offset =
        value.empty() ? after_eq.size() : after_eq.find_first_not_of(blanks);

    assignment a;
    a.source = std::move(source);
    a.origin = std::move(origin);
    a.has_columns = has_columns;
    a.toml = std::string(text);
    a.bare_value = std::string(value);
    a.value_column = static_cast<std::uint32_t>(eq + 1 + value_offset + 1);
    const bool looks_like_toml =
        !value.empty() && std::string_view("[{\"'").find(value.front()) != std::string_view::npos;
    if (!looks_like_toml) {
        const std::string_view key_part = text.substr(0, eq + 1);  // "KEY=" exactly as given
        a.bare_toml =
            std::string(key_part) + bare_value_as_toml(schema_key(trim(text.substr(0, eq))), value);
        a.bare_value_column = static_cast<std::uint32_t>(key_part.size() + 1);
    }
    return a;
}

}  // namespace rtkit::config::detail
