#include "plugins_command.hpp"

#include <algorithm>
#include <iostream>

#include "exit_codes.hpp"
#include "rtkit/config/closest_match.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtctl {
namespace {

namespace fs = std::filesystem;

/// The loader the runtime would use: the configuration's search path (file and
/// environment), then RTKIT_PLUGIN_PATH. The plugins the configuration names
/// are not checked: a refused one is what these commands are for showing.
/// Nullopt after printing config errors.
std::optional<rtkit::plugin_loader> make_loader(const plugins_options& options) {
    try {
        rtkit::config::config_sources sources;
        sources.file = options.config_file;
        sources.check_plugins = false;
        const auto loaded = rtkit::config::load(sources);
        return rtkit::plugin_loader(loaded.config.plugin_search_path,
                                    {loaded.config.allow_insecure_plugins});
    } catch (const rtkit::config::config_error& e) {
        std::cerr << e.what() << '\n';
        return std::nullopt;
    }
}

std::string abi_of(const rtkit::plugin_info& info) {
    return std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
}

/// Prints rows as columns separated by two spaces; the last column is not padded.
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (widths.size() <= i) widths.push_back(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out << line << '\n';
    }
}

std::string type_text(rtkit_option_type type) {
    switch (type) {
        case RTKIT_OPTION_BOOL:
            return "boolean";
        case RTKIT_OPTION_INT:
            return "integer";
        case RTKIT_OPTION_STRING:
            return "string";
    }
    return "?";
}

std::string constraint_text(const rtkit::plugin_option_info& o) {
    if (o.type == RTKIT_OPTION_INT)
        return std::to_string(o.min_value) + ".." + std::to_string(o.max_value);
    if (o.type == RTKIT_OPTION_STRING && !o.allowed.empty()) return "one of " + o.allowed;
    return "";
}

}  // namespace

int plugins_list_command(const plugins_options& options) {
    const auto loader = make_loader(options);
    if (!loader) return exit_bad_input;
    const rtkit::search_path_survey survey = loader->survey();
    const std::vector<rtkit::plugin_info>& plugins = survey.plugins;
    std::vector<std::vector<std::string>> rows{
        {"NAME", "KIND", "VERSION", "ABI", "FILE", "DESCRIPTION"}};
    for (const rtkit::plugin_info& info : plugins) {
        std::string description = info.description;
        if (!info.shadowed_by.empty())
            description +=
                " [shadowed by " + info.shadowed_by.string() + ": the first in search order wins]";
        rows.push_back({info.name, std::string(rtkit::kind_name(info.kind)), info.version,
                        abi_of(info), info.file.string(), description});
    }
    print_columns(std::cout, rows);
    if (!survey.refused.empty()) {
        std::cout << "\nrefused:\n";
        for (const auto& [file, why] : survey.refused)
            std::cout << "  " << file.string() << ": " << why << '\n';
    }
    if (!survey.skipped.empty()) {
        std::cout << "\nskipped, not named as plugins are (rtkit_KIND_NAME.so), never opened:\n";
        for (const fs::path& file : survey.skipped)
            std::cout << "  " << file.string() << '\n';
    }
    std::cout << "\nsearch path (in order):\n";
    for (const fs::path& dir : loader->search_path())
        std::cout << "  " << dir.string() << '\n';
    return exit_ok;
}

int plugins_info_command(const plugins_options& options) {
    const auto loader = make_loader(options);
    if (!loader) return exit_bad_input;
    std::vector<rtkit::plugin_info> matches;
    std::vector<std::string_view> names;
    const std::vector<rtkit::plugin_info> plugins = loader->list();
    for (const rtkit::plugin_info& info : plugins) {
        if (!info.shadowed_by.empty()) continue;
        const std::string_view kind = rtkit::kind_name(info.kind);
        if (!options.kind.empty() && kind != options.kind) continue;
        names.push_back(info.name);
        if (info.name == options.name) matches.push_back(info);
    }
    if (matches.empty()) {
        std::cerr << "rtctl plugins info: no " << (options.kind.empty() ? "" : options.kind + " ")
                  << "plugin named '" << options.name << "'"
                  << rtkit::config::did_you_mean(options.name, names)
                  << " (see 'rtctl plugins list')\n";
        return exit_bad_input;
    }
    if (matches.size() > 1) {
        std::cerr << "rtctl plugins info: '" << options.name
                  << "' names plugins of several kinds; add --kind reactor|timer|lanes\n";
        return exit_bad_input;
    }
    const rtkit::plugin_info& info = matches.front();
    print_columns(std::cout, {{"name:", info.name},
                              {"kind:", std::string(rtkit::kind_name(info.kind))},
                              {"version:", info.version},
                              {"ABI:", abi_of(info)},
                              {"file:", info.file.string()},
                              {"description:", info.description}});
    if (info.options.empty()) {
        std::cout << "options: none\n";
        return exit_ok;
    }
    const std::string table =
        "[" + std::string(rtkit::kind_name(info.kind)) + "." + info.name + "]";
    std::cout << "options (in " << table << "):\n";
    std::vector<std::vector<std::string>> rows{{"  NAME", "TYPE", "DEFAULT", "VALUES", "HELP"}};
    std::size_t hidden = 0;
    for (const rtkit::plugin_option_info& o : info.options) {
        const bool test_only = rtkit::is_test_only_option(o.name);
        if (test_only && !options.test_options) {
            ++hidden;
            continue;
        }
        rows.push_back({"  " + o.name, type_text(o.type), o.default_value, constraint_text(o),
                        (test_only ? "[test only] " : "") + o.help});
    }
    print_columns(std::cout, rows);
    if (hidden > 0)
        std::cout << "(" << hidden << " test-only option" << (hidden == 1 ? "" : "s")
                  << " hidden: --test-options shows " << (hidden == 1 ? "it" : "them") << ")\n";
    return exit_ok;
}

}  // namespace rtctl
