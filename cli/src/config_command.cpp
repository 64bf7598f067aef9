#include "config_command.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "exit_codes.hpp"
#include "rtkit/config/default_toml.hpp"
#include "rtkit/config/input_file.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/config/toml_text.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtctl {
namespace {

std::optional<rtkit::config::loaded_config> load_or_report(const config_options& options) {
    try {
        return rtkit::config::load(
            rtkit::config::config_sources{options.file, true, options.overrides});
    } catch (const rtkit::config::config_error& e) {
        std::cerr << e.what() << '\n';
        return std::nullopt;
    }
}

std::string origin_of(const rtkit::config::value_origins& origins, const std::string& key,
                      const std::string& fallback) {
    const auto it = origins.find(key);
    return it == origins.end() ? fallback : it->second;
}

/// Lines "key = value" with their origin comments aligned after them.
class commented_lines {
  public:
    void add(std::string assignment, std::string origin) {
        lines_.emplace_back(std::move(assignment), std::move(origin));
    }
    void print(std::ostream& out) {
        std::size_t width = 0;
        for (const auto& [text, origin] : lines_)
            width = std::max(width, text.size());
        for (const auto& [text, origin] : lines_)
            out << text << std::string(width - text.size() + 2, ' ') << "# " << origin << '\n';
        lines_.clear();
    }

  private:
    std::vector<std::pair<std::string, std::string>> lines_;
};

rtkit_plugin_kind kind_of(std::string_view table) {
    if (table == "reactor") return RTKIT_PLUGIN_REACTOR;
    if (table == "timer") return RTKIT_PLUGIN_TIMER;
    return RTKIT_PLUGIN_LANES;
}

/// [TABLE.NAME] for every plugin the selection names or configures that is on
/// the search path: each declared option, configured or default. A test-only
/// option left at its default is shown only with `test_options`.
void print_plugin_tables(std::ostream& out, const rtkit::config::table_spec& table,
                         const rtkit::plugin_selection& selection,
                         const rtkit::plugin_loader& loader,
                         const rtkit::config::value_origins& origins, bool test_options) {
    std::vector<std::string> names = selection.preference;
    for (const auto& [name, options] : selection.options)
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (const std::string& name : names) {
        std::optional<rtkit::plugin_info> info;
        try {
            info = loader.inspect(loader.find(kind_of(table.name), name));
        } catch (const rtkit::plugin_error&) {
            out << "\n# [" << table.name << '.' << name
                << "]: plugin not found on the search path\n";
            continue;
        }
        if (info->options.empty()) continue;
        out << "\n[" << table.name << '.' << name << "]\n";
        const auto configured = selection.options.find(name);
        commented_lines lines;
        for (const rtkit::plugin_option_info& o : info->options) {
            const std::string key = std::string(table.name) + '.' + name + '.' + o.name;
            std::string value = o.default_value;
            bool set = false;
            if (configured != selection.options.end())
                if (auto it = configured->second.find(o.name); it != configured->second.end()) {
                    value = rtkit::config::to_toml(it->second);
                    set = true;
                }
            if (!set && !test_options && rtkit::is_test_only_option(o.name)) continue;
            lines.add(o.name + " = " + value, origin_of(origins, key, "default of plugin " + name));
        }
        lines.print(out);
    }
}

}  // namespace

int config_check_command(const config_options& options) {
    const auto loaded = load_or_report(options);
    if (!loaded) return exit_bad_input;
    std::cout << rtkit::config::input_name(*options.file) << ": ok\n";
    return exit_ok;
}

int config_show_command(const config_options& options) {
    const auto loaded = load_or_report(options);
    if (!loaded) return exit_bad_input;
    std::ostringstream out;
    out << "# effective configuration: --set > RTKIT_* environment > "
        << (options.file ? rtkit::config::input_name(*options.file) : std::string("(no file)"))
        << " > defaults\n";
    const rtkit::plugin_loader loader(loaded->config.plugin_search_path,
                                      {loaded->config.allow_insecure_plugins});
    for (const auto& table : rtkit::config::tables()) {
        out << "\n[" << table.name << "]\n";
        commented_lines lines;
        for (const auto& key : rtkit::config::keys()) {
            if (key.table != table.name) continue;
            const std::string dotted = std::string(key.table) + '.' + std::string(key.name);
            lines.add(std::string(key.name) + " = " +
                          rtkit::config::to_toml(key.read(loaded->config), key.type),
                      origin_of(loaded->origins, dotted, "default"));
        }
        lines.print(out);
        if (table.plugin_kind)
            print_plugin_tables(out, table, loaded->config.*(table.plugin_kind), loader,
                                loaded->origins, options.test_options);
    }
    std::cout << out.str();
    return exit_ok;
}

int config_default_command() {
    std::cout << rtkit::config::default_toml();
    return exit_ok;
}

}  // namespace rtctl
