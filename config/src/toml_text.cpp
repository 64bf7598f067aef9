#include "rtkit/config/toml_text.hpp"

#include <cstdio>

namespace rtkit::config {

std::string toml_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                // TOML allows no raw control character in a basic string: DEL neither.
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

std::string to_toml(const config_value& value, value_type type) {
    if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
    if (const std::string* s = std::get_if<std::string>(&value)) return toml_string(*s);
    const auto& list = std::get<std::vector<std::string>>(value);
    if (type == value_type::plugin_preference && list.size() == 1) return toml_string(list[0]);
    std::string out = "[";
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i > 0) out += ", ";
        out += toml_string(list[i]);
    }
    out += ']';
    return out;
}

std::string to_toml(const option_value& value) {
    if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
    return toml_string(std::get<std::string>(value));
}

}  // namespace rtkit::config
