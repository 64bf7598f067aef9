#include "toml_reader.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
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

/// What the reader knows of one layer: a file or one assignment. A node's
/// layer is found from the source path it was parsed under ("#0", "#1", ...).
struct layer {
    std::string name;                ///< names it in errors
    std::string origin;              ///< for value_origins; empty: "NAME:LINE:COLUMN"
    std::filesystem::path base_dir;  ///< relative paths in it are resolved against this
    bool has_columns = true;
    /// Set when the assignment's value was read as a bare string: errors about
    /// it quote what was written and point at where it was written.
    const assignment* bare = nullptr;
};

/// Moves every key of `from` into `into`: a table merges into a table of the
/// same name, anything else replaces what was there. Nodes keep their source.
void merge_into(toml::table& into, toml::table& from) {
    for (auto&& [key, node] : from) {
        toml::node* existing = into.get(key.str());
        if (existing && existing->is_table() && node.is_table())
            merge_into(*existing->as_table(), *node.as_table());
        else
            into.insert_or_assign(key, std::move(node));
    }
}

/// Parses and merges the layers, then walks the merged document, collecting
/// every problem before throwing, so that one run of `rtctl config check`
/// shows them all.
class toml_reader {
  public:
    toml_reader(const toml_file* file, std::span<const assignment> assignments,
                value_origins* origins)
        : origins_(origins) {
        if (file) {
            layers_.push_back(layer{file->name, {}, file->base_dir, true, nullptr});
            parse(file->text);
        }
        for (const assignment& a : assignments) {
            layers_.push_back(
                layer{a.source, a.origin, std::filesystem::current_path(), a.has_columns, nullptr});
            if (a.refusal.empty())
                parse_assignment(a);
            else
                add(source_position{0, 0, layers_.size() - 1}, a.refusal);
        }
        throw_if_any();
    }

    void read(runtime_config& config, bool check_plugins) {
        const auto names = table_names();
        for (auto&& [key, node] : merged_) {
            const table_spec* table = find_table(key.str());
            if (!table) {
                error(key.source(), "unknown key '" + std::string(key.str()) +
                                        "' in the top level" + did_you_mean(key.str(), names) +
                                        valid_list(names));
            } else if (const auto* t = node.as_table()) {
                read_table(*table, *t, config);
            } else {
                error(node.source(),
                      quote(key.str()) + " must be a table, not " + describe_value(node));
            }
        }
        // Plugins are checked last, on the merged result: the search path and
        // the preferences may be set in any table, by any layer.
        if (check_plugins)
            for (auto& problem : check_plugin_mentions(mentions_, config))
                add(problem.at, std::move(problem.message));
        throw_if_any();
    }

  private:
    void parse(std::string_view text) {
        const std::string path = "#" + std::to_string(layers_.size() - 1);
        try {
            toml::table table = toml::parse(text, std::string_view(path));
            merge_into(merged_, table);
        } catch (const toml::parse_error& e) {
            error(e.source(), "malformed TOML: " + std::string(e.description()));
        }
    }

    // The value as written if it is TOML, else as a bare string (when allowed).
    void parse_assignment(const assignment& a) {
        const std::string path = "#" + std::to_string(layers_.size() - 1);
        try {
            toml::table table = toml::parse(std::string_view(a.toml), std::string_view(path));
            merge_into(merged_, table);
            return;
        } catch (const toml::parse_error& e) {
            if (a.bare_toml.empty()) {
                error(e.source(), "malformed TOML: " + std::string(e.description()));
                return;
            }
        }
        layers_.back().bare = &a;
        parse(a.bare_toml);
    }

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
        if (auto problem = check_value(spec, *value, layer_of(node.source()).base_dir)) {
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
                                 describe_value(node) +
                                 " (default: " + std::string(spec.default_toml) + ")");
    }

    // Only the value types are checked here; the plugin's declarations are
    // checked once the whole document is read (check_plugin_mentions).
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
                                          describe_value(value));
                continue;
            }
            options[std::string(key.str())] = read;
            record_origin(
                std::string(table.name) + "." + entry.plugin + "." + std::string(key.str()),
                value.source());
            entry.options.push_back(plugin_option_entry{std::string(key.str()), position(key),
                                                        position(value), read,
                                                        describe_value(value)});
        }
        mentions_.tables.push_back(std::move(entry));
    }

    /// How a value reads in a message: its TOML type ("a string"), or what
    /// was written when a bare value was taken for a string ("'maybe'").
    std::string describe_value(const toml::node& node) const {
        const layer& from = layer_of(node.source());
        if (from.bare && node.is_value()) return quote(from.bare->bare_value);
        return std::string(describe(node.type()));
    }

    std::size_t layer_index(const toml::source_region& where) const {
        if (!where.path || where.path->size() < 2) return 0;
        const std::size_t index = std::stoul(where.path->substr(1));
        return index < layers_.size() ? index : 0;
    }
    const layer& layer_of(const toml::source_region& where) const {
        return layers_[layer_index(where)];
    }

    source_position position(const toml::source_region& where) const {
        const layer& from = layer_of(where);
        source_position at{where.begin.line, where.begin.column, layer_index(where)};
        if (!from.has_columns) return {0, 0, at.layer};
        // A bare value was rewritten as TOML: point at the value as given.
        if (from.bare && at.column >= from.bare->bare_value_column)
            at.column = from.bare->value_column;
        return at;
    }
    source_position position(const toml::node& node) const { return position(node.source()); }
    source_position position(const toml::key& key) const { return position(key.source()); }

    void record_origin(const std::string& dotted, const toml::source_region& where) {
        if (!origins_) return;
        const layer& from = layer_of(where);
        (*origins_)[dotted] = !from.origin.empty()
                                  ? from.origin
                                  : from.name + ":" + std::to_string(where.begin.line) + ":" +
                                        std::to_string(where.begin.column);
    }

    void error(const toml::source_region& where, std::string message) {
        add(position(where), std::move(message));
    }
    void add(const source_position& at, std::string message) {
        problems_.push_back(plugin_problem{at, std::move(message)});
    }

    /// Throws every problem so far, by layer and then by position.
    void throw_if_any() {
        if (problems_.empty()) return;
        std::stable_sort(problems_.begin(), problems_.end(),
                         [](const plugin_problem& a, const plugin_problem& b) {
                             return std::tie(a.at.layer, a.at.line, a.at.column) <
                                    std::tie(b.at.layer, b.at.line, b.at.column);
                         });
        std::vector<config_diagnostic> diagnostics;
        for (plugin_problem& p : problems_)
            diagnostics.push_back(config_diagnostic{layers_[p.at.layer].name, p.at.line,
                                                    p.at.column, std::move(p.message)});
        throw config_error(std::move(diagnostics));
    }

    value_origins* origins_;
    std::vector<layer> layers_;
    toml::table merged_;
    plugin_mentions mentions_;
    std::vector<plugin_problem> problems_;
};

}  // namespace

void read_toml(const toml_file* file, std::span<const assignment> assignments,
               runtime_config& config, value_origins* origins, bool check_plugins) {
    runtime_config result = config;
    value_origins recorded;
    toml_reader(file, assignments, origins ? &recorded : nullptr).read(result, check_plugins);
    config = std::move(result);
    if (origins)
        for (auto& [key, origin] : recorded)
            (*origins)[key] = std::move(origin);
}

}  // namespace rtkit::config::detail
