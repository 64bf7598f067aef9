#include "toml_reader.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <string>
#include <vector>

#include "plugin_table_check.hpp"
#include "rtkit/config/closest_match.hpp"
#include "rtkit/config/config_error.hpp"
#include "rtkit/config/schema.hpp"
#include "value_check.hpp"

namespace rtkit::config::detail {
namespace {

std::string_view describe(toml::node_type type) {
    switch (type) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a floating-point number";
        case toml::node_type::boolean:
            return "a boolean";
        case toml::node_type::date:
            return "a date";
        case toml::node_type::time:
            return "a time";
        case toml::node_type::date_time:
            return "a date-time";
        case toml::node_type::none:
            break;
    }
    return "nothing";
}

/// Walks the document, collecting every problem before throwing, so that one
/// run of `rtctl config check` shows them all.
class toml_reader {
  public:
    toml_reader(std::string_view source_name, const std::filesystem::path& base_dir,
                value_origins* origins)
        : source_name_(source_name), base_dir_(base_dir), origins_(origins) {}

    void read(const toml::table& root, runtime_config& config) {
        const auto names = table_names();
        for (auto&& [key, node] : root) {
            const table_spec* table = find_table(key.str());
            if (!table) {
                error(key.source(), "unknown key '" + std::string(key.str()) +
                                        "' in the top level" + did_you_mean(key.str(), names) +
                                        valid_list(names));
            } else if (const auto* t = node.as_table()) {
                read_table(*table, *t, config);
            } else {
                error(node.source(), quote(key.str()) + " must be a table, not " +
                                         std::string(describe(node.type())));
            }
        }
        // Plugins are checked last: the search path may be set in any table.
        for (auto& d : check_plugin_mentions(mentions_, config, source_name_))
            diagnostics_.push_back(std::move(d));
        if (!diagnostics_.empty()) {
            std::stable_sort(diagnostics_.begin(), diagnostics_.end(),
                             [](const config_diagnostic& a, const config_diagnostic& b) {
                                 return std::tie(a.line, a.column) < std::tie(b.line, b.column);
                             });
            throw config_error(std::move(diagnostics_));
        }
    }

  private:
    static std::string valid_list(const std::vector<std::string_view>& names) {
        std::string text = " (valid: ";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i > 0) text += ", ";
            text += names[i];
        }
        return text + ')';
    }

    void read_table(const table_spec& table, const toml::table& node, runtime_config& config) {
        const auto names = key_names(table.name);
        for (auto&& [key, value] : node) {
            if (const key_spec* spec = find_key(table.name, key.str())) {
                read_key(*spec, value, config);
                if (table.plugin_kind && spec->name == "plugin")
                    mentions_.preferences.push_back(preference_entry{&table, position(value)});
            } else if (table.plugin_kind && value.is_table()) {
                read_plugin_options(table, key, *value.as_table(), config.*(table.plugin_kind));
            } else {
                std::string message = "unknown key '" + std::string(key.str()) + "' in [" +
                                      std::string(table.name) + "]" +
                                      did_you_mean(key.str(), names) + valid_list(names);
                if (table.plugin_kind)
                    message +=
                        "; a plugin's own options go in [" + std::string(table.name) + ".NAME]";
                error(key.source(), std::move(message));
            }
        }
    }

    void read_key(const key_spec& spec, const toml::node& node, runtime_config& config) {
        auto value = convert(spec, node);
        if (!value) return;
        if (auto problem = check_value(spec, *value, base_dir_)) {
            error(node.source(), std::move(*problem));
            return;
        }
        spec.assign(config, *value);
        record_origin(dotted_name(spec), node.source());
    }

    std::optional<config_value> convert(const key_spec& spec, const toml::node& node) {
        switch (spec.type) {
            case value_type::string:
                if (auto* s = node.as_string()) return config_value(s->get());
                break;
            case value_type::boolean:
                if (auto* b = node.as_boolean()) return config_value(b->get());
                break;
            case value_type::integer:
                if (auto* i = node.as_integer()) return config_value(i->get());
                break;
            case value_type::plugin_preference:
                if (auto* s = node.as_string())
                    return config_value(std::vector<std::string>{s->get()});
                if (auto* a = node.as_array()) return string_array(spec, *a);
                break;
            case value_type::path_list:
                if (auto* a = node.as_array()) return string_array(spec, *a);
                break;
        }
        type_error(spec, node);
        return std::nullopt;
    }

    std::optional<config_value> string_array(const key_spec& spec, const toml::array& array) {
        std::vector<std::string> items;
        for (const auto& element : array) {
            const auto* s = element.as_string();
            if (!s) {
                error(element.source(), quoted_name(spec) + " must be " +
                                            std::string(rtkit::config::describe(spec.type)) +
                                            ", but an element is " +
                                            std::string(describe(element.type())));
                return std::nullopt;
            }
            items.push_back(s->get());
        }
        return config_value(std::move(items));
    }

    void type_error(const key_spec& spec, const toml::node& node) {
        error(node.source(), quoted_name(spec) + " must be " +
                                 std::string(rtkit::config::describe(spec.type)) + ", not " +
                                 std::string(describe(node.type())) +
                                 " (default: " + std::string(spec.default_toml) + ")");
    }

    // Only the value types are checked here; the plugin's declarations are
    // checked once the whole file is read (check_plugin_mentions).
    void read_plugin_options(const table_spec& table, const toml::key& plugin,
                             const toml::table& node, plugin_selection& selection) {
        auto& options = selection.options[std::string(plugin.str())];
        plugin_table_entry entry{&table, std::string(plugin.str()), position(plugin), {}};
        for (auto&& [key, value] : node) {
            const std::string where = "option '" + std::string(key.str()) + "' in [" +
                                      std::string(table.name) + "." + entry.plugin + "]";
            option_value read;
            if (auto* b = value.as_boolean()) {
                read = b->get();
            } else if (auto* i = value.as_integer()) {
                read = i->get();
            } else if (auto* s = value.as_string()) {
                read = s->get();
            } else {
                error(value.source(), where + " must be a boolean, an integer or a string, not " +
                                          std::string(describe(value.type())));
                continue;
            }
            options[std::string(key.str())] = read;
            record_origin(
                std::string(table.name) + "." + entry.plugin + "." + std::string(key.str()),
                value.source());
            entry.options.push_back(
                plugin_option_entry{std::string(key.str()), position(key), position(value), read});
        }
        mentions_.tables.push_back(std::move(entry));
    }

    static source_position position(const toml::node& node) {
        return {node.source().begin.line, node.source().begin.column};
    }
    static source_position position(const toml::key& key) {
        return {key.source().begin.line, key.source().begin.column};
    }

    void record_origin(const std::string& dotted, const toml::source_region& where) {
        if (!origins_) return;
        (*origins_)[dotted] = source_name_ + ":" + std::to_string(where.begin.line) + ":" +
                              std::to_string(where.begin.column);
    }

    void error(const toml::source_region& where, std::string message) {
        diagnostics_.push_back(config_diagnostic{source_name_, where.begin.line, where.begin.column,
                                                 std::move(message)});
    }

    std::string source_name_;
    std::filesystem::path base_dir_;
    value_origins* origins_;
    plugin_mentions mentions_;
    std::vector<config_diagnostic> diagnostics_;
};

}  // namespace

void read_toml(std::string_view text, std::string_view source_name,
               const std::filesystem::path& base_dir, runtime_config& config,
               value_origins* origins) {
    toml::table root;
    try {
        root = toml::parse(text, source_name);
    } catch (const toml::parse_error& e) {
        throw config_error({config_diagnostic{std::string(source_name), e.source().begin.line,
                                              e.source().begin.column,
                                              "malformed TOML: " + std::string(e.description())}});
    }
    toml_reader(source_name, base_dir, origins).read(root, config);
}

}  // namespace rtkit::config::detail
