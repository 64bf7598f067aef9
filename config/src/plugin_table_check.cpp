#include "plugin_table_check.hpp"

#include <algorithm>
#include <filesystem>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/config/toml_text.hpp"
#include "value_check.hpp"

namespace rtkit::config::detail {
namespace {

/// The plugins of each kind on one search path, loaded once per check.
class known_plugins {
  public:
    explicit known_plugins(const runtime_config& config)
        : loader_(config.plugin_search_path, plugin_load_policy{config.allow_insecure_plugins}) {
        for (plugin_info& info : loader_.list())
            if (info.shadowed_by.empty()) plugins_.push_back(std::move(info));
    }

    const plugin_info* find(rtkit_plugin_kind kind, std::string_view name) const {
        for (const plugin_info& info : plugins_)
            if (info.kind == kind && info.name == name) return &info;
        return nullptr;
    }

    std::vector<std::string_view> names(rtkit_plugin_kind kind) const {
        std::vector<std::string_view> names;
        for (const plugin_info& info : plugins_)
            if (info.kind == kind) names.push_back(info.name);
        return names;
    }

    /// "; did you mean 'epoll'? (known reactor plugins: epoll, uring; searched: DIRS)"
    std::string unknown_hint(rtkit_plugin_kind kind, std::string_view name) const {
        const auto known = names(kind);
        std::string text =
            did_you_mean(name, known) + " (known " + std::string(kind_name(kind)) + " plugins: ";
        for (std::size_t i = 0; i < known.size(); ++i)
            text += (i ? ", " : "") + std::string(known[i]);
        if (known.empty()) text += "none";
        text += "; searched: ";
        const auto& dirs = loader_.search_path();
        for (std::size_t i = 0; i < dirs.size(); ++i)
            text += (i ? ", " : "") + dirs[i].string();
        return text + ")" + refusals(kind, name);
    }

  private:
    /// "; WHY" for each file on the search path named like plugin `name`
    /// (rtkit_KIND_NAME.so) that the loader refuses, so that an "unknown
    /// plugin" error next to such a file says why it does not count (for
    /// example permissions: see [plugins] allow_insecure).
    std::string refusals(rtkit_plugin_kind kind, std::string_view name) const {
        const std::string file =
            "rtkit_" + std::string(kind_name(kind)) + "_" + std::string(name) + ".so";
        std::string text;
        for (const std::filesystem::path& dir : loader_.search_path()) {
            std::error_code ec;
            if (!std::filesystem::exists(dir / file, ec)) continue;
            try {
                loader_.inspect(dir / file);
            } catch (const plugin_error& e) {
                text += "; ";
                text += e.what();
            }
        }
        return text;
    }

    plugin_loader loader_;
    std::vector<plugin_info> plugins_;
};

rtkit_plugin_kind kind_of(const table_spec& table) {
    if (table.name == "reactor") return RTKIT_PLUGIN_REACTOR;
    if (table.name == "timer") return RTKIT_PLUGIN_TIMER;
    return RTKIT_PLUGIN_LANES;
}

class checker {
  public:
    explicit checker(const runtime_config& config) : config_(config), known_(config) {}

    void preference(const preference_entry& entry) {
        const plugin_selection& selection = config_.*(entry.table->plugin_kind);
        const rtkit_plugin_kind kind = kind_of(*entry.table);
        const auto& names = selection.preference;
        const bool any_known = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
            return known_.find(kind, n) != nullptr;
        });
        // The runtime fails only when it can start none of them (strict: the
        // first); names not built here may stay in a fallback list.
        std::vector<const std::string*> fatal;
        if (!names.empty() && selection.strict && !known_.find(kind, names.front()))
            fatal.push_back(&names.front());
        else if (!any_known)
            for (const std::string& name : names)
                fatal.push_back(&name);
        for (const std::string* name : fatal) {
            std::string message = "unknown " + std::string(kind_name(kind)) + " plugin " +
                                  quote(*name) + " in '" + std::string(entry.table->name) +
                                  ".plugin'" + known_.unknown_hint(kind, *name);
            if (selection.strict) message += "; strict = true allows no fallback";
            error(entry.at, std::move(message));
        }
    }

    void table(const plugin_table_entry& entry) {
        const rtkit_plugin_kind kind = kind_of(*entry.table);
        const std::string header = "[" + std::string(entry.table->name) + "." + entry.plugin + "]";
        const plugin_info* info = known_.find(kind, entry.plugin);
        if (!info) {
            const auto& names = (config_.*(entry.table->plugin_kind)).preference;
            // A fallback that is not built here: the preference check decides.
            if (std::find(names.begin(), names.end(), entry.plugin) != names.end()) return;
            error(entry.at, header + " configures unknown " + std::string(kind_name(kind)) +
                                " plugin " + quote(entry.plugin) +
                                known_.unknown_hint(kind, entry.plugin));
            return;
        }
        for (const plugin_option_entry& option : entry.options)
            check_option(*info, header, option);
    }

    std::vector<plugin_problem> take() { return std::move(problems_); }

  private:
    void check_option(const plugin_info& info, const std::string& header,
                      const plugin_option_entry& option) {
        const auto declared =
            std::find_if(info.options.begin(), info.options.end(),
                         [&](const plugin_option_info& o) { return o.name == option.key; });
        const std::string what = "option " + quote(option.key) + " in " + header;
        if (declared == info.options.end()) {
            std::vector<std::string_view> valid;
            for (const plugin_option_info& o : info.options)
                valid.push_back(o.name);
            std::string list;
            for (std::size_t i = 0; i < valid.size(); ++i)
                list += (i ? ", " : "") + std::string(valid[i]);
            error(option.key_at,
                  "unknown " + what + did_you_mean(option.key, valid) +
                      (valid.empty() ? " (plugin " + quote(info.name) + " takes no options)"
                                     : " (valid: " + list + ")"));
            return;
        }
        const plugin_option_info& o = *declared;
        if (!has_option_type(option.value, o.type)) {
            error(option.value_at, what + " must be " + std::string(option_type_name(o.type)) +
                                       ", not " + option.value_description +
                                       " (default: " + o.default_value + ")");
            return;
        }
        if (o.type == RTKIT_OPTION_INT) {
            const std::int64_t v = std::get<std::int64_t>(option.value);
            if (v < o.min_value || v > o.max_value)
                error(option.value_at, what + " is " + std::to_string(v) + ", out of its range " +
                                           std::to_string(o.min_value) + ".." +
                                           std::to_string(o.max_value) +
                                           " (default: " + o.default_value + ")");
        }
        if (o.type == RTKIT_OPTION_STRING && !o.allowed.empty()) {
            const std::string& v = std::get<std::string>(option.value);
            const auto allowed = allowed_option_values(o.allowed);
            if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
                error(option.value_at, what + " must be one of " + quoted_list(allowed) + ", not " +
                                           toml_string(v) + did_you_mean(v, allowed));
            }
        }
    }

    void error(source_position at, std::string message) {
        problems_.push_back(plugin_problem{at, std::move(message)});
    }

    const runtime_config& config_;
    known_plugins known_;
    std::vector<plugin_problem> problems_;
};

}  // namespace

std::vector<plugin_problem> check_plugin_mentions(const plugin_mentions& mentions,
                                                  const runtime_config& config) {
    if (mentions.preferences.empty() && mentions.tables.empty()) return {};
    checker check(config);
    for (const preference_entry& p : mentions.preferences)
        check.preference(p);
    for (const plugin_table_entry& t : mentions.tables)
        check.table(t);
    return check.take();
}

}  // namespace rtkit::config::detail
