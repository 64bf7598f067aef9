// rtkit::plugin_loader: search path, descriptor checks, option validation and
// object creation for plugin libraries loaded with Boost.DLL.
#include "rtkit/plugin_loader.hpp"

#include "plugin_descriptor_check.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <boost/system/system_error.hpp>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>

namespace rtkit {
namespace {

namespace fs = std::filesystem;
using library_ptr = std::shared_ptr<boost::dll::shared_library>;

/// The descriptor size each minor of the current major requires: a plugin of
/// minor m must provide at least every field that minor defines.
constexpr std::uint32_t descriptor_size_for_minor[] = {
    sizeof(rtkit_plugin_descriptor),  // 1.0
};
static_assert(std::size(descriptor_size_for_minor) == RTKIT_PLUGIN_ABI_MINOR + 1,
              "add the descriptor size of the new ABI minor");

/// A library whose descriptor passed every check, loaded for as long as this lives.
struct checked_plugin {
    library_ptr library;
    const rtkit_plugin_descriptor* descriptor = nullptr;
    plugin_info info;
};

std::string quoted(const fs::path& file) {
    return "'" + file.string() + "'";
}

std::string abi_text(std::uint32_t major, std::uint32_t minor) {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string host_abi() {
    return abi_text(RTKIT_PLUGIN_ABI_MAJOR, RTKIT_PLUGIN_ABI_MINOR);
}

bool is_known_kind(std::uint32_t kind) {
    return kind == RTKIT_PLUGIN_REACTOR || kind == RTKIT_PLUGIN_TIMER || kind == RTKIT_PLUGIN_LANES;
}

std::string kind_text(std::uint32_t kind) {
    return is_known_kind(kind) ? std::string(kind_name(static_cast<rtkit_plugin_kind>(kind)))
                               : "unknown-kind(" + std::to_string(kind) + ")";
}

/// "a reactor", "an ..." for messages.
std::string with_article(std::uint32_t kind) {
    return "a " + kind_text(kind);
}

std::string text_or_empty(const char* s) {
    return s ? s : "";
}

/// Copies the descriptor into a plugin_info, rejecting declarations the loader
/// could not use safely (a null name, an option with no name or an unknown type).
plugin_info describe(const rtkit_plugin_descriptor& d, const fs::path& file) {
    auto broken = [&](const std::string& what) {
        return plugin_error("plugin file " + quoted(file) + " has a malformed descriptor: " + what +
                            "; fix the plugin's descriptor (use rtkit::make_plugin_descriptor)");
    };
    if (!d.name || !*d.name) throw broken("it has no name");
    if (!d.create || !d.destroy) throw broken("its create or destroy function is null");
    if (d.option_count > 0 && !d.options) throw broken("option_count > 0 but options is null");
    plugin_info info;
    info.name = d.name;
    info.kind = static_cast<rtkit_plugin_kind>(d.kind);
    info.version = text_or_empty(d.version);
    info.description = text_or_empty(d.description);
    info.abi_major = d.abi_major;
    info.abi_minor = d.abi_minor;
    info.file = file;
    for (std::uint32_t i = 0; i < d.option_count; ++i) {
        const rtkit_option_decl& o = d.options[i];
        if (!o.name || !*o.name) throw broken("option #" + std::to_string(i) + " has no name");
        if (o.type != RTKIT_OPTION_BOOL && o.type != RTKIT_OPTION_INT &&
            o.type != RTKIT_OPTION_STRING)
            throw broken("option '" + std::string(o.name) + "' has unknown type " +
                         std::to_string(o.type));
        info.options.push_back(plugin_option_info{
            o.name, static_cast<rtkit_option_type>(o.type), text_or_empty(o.default_value),
            o.min_value, o.max_value, text_or_empty(o.allowed), text_or_empty(o.help)});
    }
    return info;
}

/// dlerror's own words out of Boost.DLL's load error, which wraps them in
/// "...(dlerror system message: <text>): <unrelated errno text>".
std::string dlerror_text(const std::exception& e) {
    const std::string what = e.what();
    const std::string marker = "dlerror system message: ";
    const std::size_t start = what.find(marker);
    const std::size_t end = what.rfind("): ");
    if (start == std::string::npos || end == std::string::npos || end < start) return what;
    return what.substr(start + marker.size(), end - start - marker.size());
}

bool env_allows_insecure() {
    const char* env = std::getenv("RTKIT_ALLOW_INSECURE_PLUGINS");
    return env && std::string_view(env) == "1";
}

/// "group", "others" or "group and others" when `mode` lets them write.
std::string loose_writers(mode_t mode) {
    const bool group = (mode & S_IWGRP) != 0;
    const bool others = (mode & S_IWOTH) != 0;
    if (group && others) return "group and others";
    return group ? "group" : others ? "others" : "";
}

/// Refuses a plugin file that someone besides its owner could have replaced,
/// before dlopen runs any of its code: the file itself, and the directory that
/// holds it (which lets anyone who can write it swap the file). Symlinks are
/// followed; the checks apply to the real file and its real directory.
void check_permissions(const fs::path& file, const plugin_load_policy& policy) {
    if (policy.allow_insecure_permissions) return;
    std::error_code ec;
    fs::path real = fs::canonical(file, ec);
    if (ec) real = file;
    for (const fs::path& target : {real, real.parent_path()}) {
        struct stat st {};
        if (::stat(target.c_str(), &st) != 0) continue;  // dlopen reports what is wrong
        // A sticky directory (/tmp) lets others create files but not replace ours.
        if (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) continue;
        const std::string writers = loose_writers(st.st_mode);
        if (writers.empty()) continue;
        const bool is_dir = target != real;
        throw plugin_error(
            std::string("refusing plugin file ") + quoted(real) + ": " +
            (is_dir ? "its directory " + quoted(target) : std::string("it")) + " is writable by " +
            writers + ", so anyone in that set could run code in this process; run 'chmod go-w " +
            target.string() +
            "', or, if you accept the risk, set [plugins] allow_insecure = true in the "
            "configuration or RTKIT_ALLOW_INSECURE_PLUGINS=1 in the environment");
    }
}

/// The descriptor's version fields, which keep their place in every major.
struct descriptor_version {
    std::uint32_t abi_major;
    std::uint32_t abi_minor;
};

std::string other_major_message(const fs::path& file, std::uint32_t major, std::uint32_t minor) {
    return "plugin file " + quoted(file) + " was built against rtkit plugin ABI " +
           abi_text(major, minor) + ", but this rtkit uses ABI " + host_abi() +
           "; rebuild the plugin against rtkit ABI " + std::to_string(RTKIT_PLUGIN_ABI_MAJOR) +
           ".x";
}

/// A plugin of another ABI major exports its descriptor under that major's
/// alias: refuse it by its version rather than call it no plugin at all.
void refuse_other_major(const boost::dll::shared_library& library, const fs::path& file) {
    for (std::uint32_t major = 1; major <= RTKIT_PLUGIN_ABI_MAJOR + 8; ++major) {
        const std::string alias = "rtkit_plugin_descriptor_v" + std::to_string(major);
        if (major == RTKIT_PLUGIN_ABI_MAJOR || !library.has(alias)) continue;
        const auto& version = library.get_alias<descriptor_version>(alias);
        throw plugin_error(other_major_message(file, version.abi_major, version.abi_minor));
    }
}

}  // namespace

namespace detail {

plugin_info check_descriptor(const rtkit_plugin_descriptor& d, const fs::path& file) {
    if (d.abi_major != RTKIT_PLUGIN_ABI_MAJOR)
        throw plugin_error(other_major_message(file, d.abi_major, d.abi_minor));
    if (d.abi_minor > RTKIT_PLUGIN_ABI_MINOR)
        throw plugin_error("plugin file " + quoted(file) + " needs rtkit plugin ABI " +
                           abi_text(d.abi_major, d.abi_minor) + ", newer than this rtkit's ABI " +
                           host_abi() +
                           "; upgrade rtkit, or rebuild the plugin against these rtkit headers");
    if (d.descriptor_size < descriptor_size_for_minor[d.abi_minor])
        throw plugin_error("plugin file " + quoted(file) + " has a " +
                           std::to_string(d.descriptor_size) + "-byte descriptor, but ABI " +
                           abi_text(d.abi_major, d.abi_minor) + " requires at least " +
                           std::to_string(descriptor_size_for_minor[d.abi_minor]) +
                           " bytes; rebuild the plugin with rtkit::make_plugin_descriptor");
    const std::string toolchain = text_or_empty(d.toolchain);
    if (toolchain != RTKIT_TOOLCHAIN_TAG)
        throw plugin_error("plugin file " + quoted(file) + " was built with C++ toolchain '" +
                           toolchain +
                           "', but this rtkit uses '" RTKIT_TOOLCHAIN_TAG
                           "'; C++ objects cross the plugin boundary, so rebuild the plugin with "
                           "the same compiler and standard library as rtkit");
    if (!is_known_kind(d.kind))
        throw plugin_error("plugin file " + quoted(file) + " declares unknown kind " +
                           std::to_string(d.kind) +
                           " (known: 1 reactor, 2 timer, 3 lanes); rebuild the plugin against "
                           "these rtkit headers");
    return describe(d, file);
}

}  // namespace detail

namespace {

/// Loads `file` and checks its descriptor, in an order where each check only
/// reads fields the previous ones proved to exist.
checked_plugin load_checked(const fs::path& requested, const plugin_load_policy& policy) {
    std::error_code ec;
    const fs::path file = fs::absolute(requested, ec);
    if (ec || !fs::exists(file, ec))
        throw plugin_error("plugin file " + quoted(requested) +
                           " does not exist; check the path, or put the plugin in a directory on "
                           "the plugin search path");
    if (!fs::is_regular_file(file, ec))
        throw plugin_error("plugin file " + quoted(file) +
                           " is not a regular file; give the path of a plugin .so file");
    check_permissions(file, policy);

    checked_plugin plugin;
    try {
        // One load at a time: dlopen itself is thread-safe, but loads racing
        // with each other gain nothing and confuse race detectors.
        static std::mutex load_mutex;
        std::lock_guard lock(load_mutex);
        // rtld_now: an unresolved symbol is reported here, not as a crash later.
        plugin.library = std::make_shared<boost::dll::shared_library>(
            file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        throw plugin_error("cannot load plugin file " + quoted(file) + ": " + dlerror_text(e) +
                           "; it must be a shared library built for this platform, with its "
                           "dependencies installed");
    }
    if (!plugin.library->has(RTKIT_PLUGIN_ALIAS_NAME)) {
        refuse_other_major(*plugin.library, file);
        throw plugin_error("file " + quoted(file) +
                           " is a shared library but not an rtkit plugin: " +
                           "it exports no '" RTKIT_PLUGIN_ALIAS_NAME
                           "' descriptor; export one with RTKIT_EXPORT_PLUGIN (rtkit_add_plugin "
                           "in CMake builds it correctly)");
    }
    const rtkit_plugin_descriptor* d =
        &plugin.library->get_alias<rtkit_plugin_descriptor>(RTKIT_PLUGIN_ALIAS_NAME);
    if (d == nullptr)
        throw plugin_error("plugin file " + quoted(file) +
                           " exports a null descriptor; export a descriptor variable with "
                           "RTKIT_EXPORT_PLUGIN");
    plugin.descriptor = d;
    plugin.info = detail::check_descriptor(*d, file);
    return plugin;
}

/// The `.so` files of a directory in name order (a missing directory has none).
std::vector<fs::path> shared_libraries_in(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (it->path().extension() == ".so" && it->is_regular_file(type_ec)) files.push_back(*it);
    }
    std::sort(files.begin(), files.end());
    return files;
}

/// rtkit_KIND_NAME.so: the only file name under which a plugin is found.
std::string plugin_file_name(std::uint32_t kind, std::string_view name) {
    return "rtkit_" + kind_text(kind) + "_" + std::string(name) + ".so";
}

/// Refuses a plugin found on the search path under a file name that is not
/// the one its descriptor gives: a search for that name would never find it.
void check_file_name(const plugin_info& info) {
    const std::string expected = plugin_file_name(info.kind, info.name);
    if (info.file.filename() == expected) return;
    throw plugin_error("plugin file " + quoted(info.file) + " holds " + with_article(info.kind) +
                       " plugin named '" + info.name + "', which is found only as " + expected +
                       "; rename the file");
}

std::string joined(const std::vector<fs::path>& dirs) {
    std::string text;
    for (const fs::path& d : dirs)
        text += (text.empty() ? "" : ", ") + d.string();
    return text.empty() ? "(none)" : text;
}

/// Parses a declared default, written as TOML would write it.
option_value parse_default(const plugin_option_info& o, const std::string& plugin,
                           const fs::path& file) {
    const std::string& text = o.default_value;
    auto bad = [&] {
        return plugin_error("plugin '" + plugin + "' (" + file.string() + ") declares default '" +
                            text + "' for option '" + o.name +
                            "', which is not a valid value of its type; fix the plugin");
    };
    switch (o.type) {
        case RTKIT_OPTION_BOOL:
            if (text == "true") return true;
            if (text == "false") return false;
            throw bad();
        case RTKIT_OPTION_INT: {
            std::size_t used = 0;
            try {
                const long long v = std::stoll(text, &used, 10);
                if (used == text.size()) return std::int64_t{v};
            } catch (const std::exception&) {
            }
            throw bad();
        }
        case RTKIT_OPTION_STRING:
            if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
                return text.substr(1, text.size() - 2);
            throw bad();
    }
    throw bad();
}

/// Checks one configured or default value against its declaration.
void check_value(const plugin_option_info& o, const option_value& v, const std::string& where) {
    if (!has_option_type(v, o.type))
        throw plugin_error("option '" + o.name + "' of " + where + " must be " +
                           std::string(option_type_name(o.type)) + ", not " +
                           std::string(option_type_name(v)));
    if (o.type == RTKIT_OPTION_INT) {
        const std::int64_t i = std::get<std::int64_t>(v);
        if (i < o.min_value || i > o.max_value)
            throw plugin_error("option '" + o.name + "' of " + where + " is " + std::to_string(i) +
                               ", out of its range [" + std::to_string(o.min_value) + ", " +
                               std::to_string(o.max_value) + "]");
    }
    if (o.type == RTKIT_OPTION_STRING && !o.allowed.empty()) {
        const auto allowed = allowed_option_values(o.allowed);
        if (std::find(allowed.begin(), allowed.end(), std::get<std::string>(v)) == allowed.end())
            throw plugin_error("option '" + o.name + "' of " + where + " is '" +
                               std::get<std::string>(v) + "', which is not one of " + o.allowed);
    }
}

}  // namespace

std::string_view option_type_name(rtkit_option_type type) noexcept {
    switch (type) {
        case RTKIT_OPTION_BOOL:
            return "a boolean";
        case RTKIT_OPTION_INT:
            return "an integer";
        case RTKIT_OPTION_STRING:
            return "a string";
    }
    return "a value of an unknown type";
}

std::string_view option_type_name(const option_value& value) noexcept {
    if (std::holds_alternative<bool>(value)) return option_type_name(RTKIT_OPTION_BOOL);
    if (std::holds_alternative<std::int64_t>(value)) return option_type_name(RTKIT_OPTION_INT);
    return option_type_name(RTKIT_OPTION_STRING);
}

bool has_option_type(const option_value& value, rtkit_option_type type) noexcept {
    return (type == RTKIT_OPTION_BOOL && std::holds_alternative<bool>(value)) ||
           (type == RTKIT_OPTION_INT && std::holds_alternative<std::int64_t>(value)) ||
           (type == RTKIT_OPTION_STRING && std::holds_alternative<std::string>(value));
}

std::vector<std::string_view> allowed_option_values(std::string_view allowed) {
    std::vector<std::string_view> values;
    while (!allowed.empty()) {
        const auto bar = allowed.find('|');
        values.push_back(allowed.substr(0, bar));
        if (bar == std::string_view::npos) break;
        allowed.remove_prefix(bar + 1);
    }
    return values;
}

std::string_view kind_name(rtkit_plugin_kind kind) noexcept {
    switch (kind) {
        case RTKIT_PLUGIN_REACTOR:
            return "reactor";
        case RTKIT_PLUGIN_TIMER:
            return "timer";
        case RTKIT_PLUGIN_LANES:
            return "lanes";
    }
    return "unknown";
}

plugin_loader::plugin_loader(std::vector<std::filesystem::path> extra_dirs)
    : plugin_loader(std::move(extra_dirs), plugin_load_policy{}) {}

plugin_loader::plugin_loader(std::vector<std::filesystem::path> extra_dirs,
                             plugin_load_policy policy)
    : policy_(policy) {
    if (env_allows_insecure()) policy_.allow_insecure_permissions = true;
    std::vector<fs::path> candidates{builtin_dir()};
    candidates.insert(candidates.end(), extra_dirs.begin(), extra_dirs.end());
    if (const char* env = std::getenv("RTKIT_PLUGIN_PATH")) {
        std::string_view rest(env);
        while (!rest.empty()) {
            const std::size_t colon = std::min(rest.find(':'), rest.size());
            if (colon > 0) candidates.emplace_back(std::string(rest.substr(0, colon)));
            rest.remove_prefix(std::min(colon + 1, rest.size()));
        }
    }
    // The same directory named twice (or through a symlink) is searched once.
    std::vector<fs::path> seen;
    for (const fs::path& dir : candidates) {
        std::error_code ec;
        fs::path key = fs::weakly_canonical(dir, ec);
        if (ec) key = dir.lexically_normal();
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        dirs_.push_back(dir);
    }
}

std::filesystem::path plugin_loader::builtin_dir() {
    // The kernel library's own file: the plugins sit in rtkit/plugins beside it,
    // in the build tree and in the install tree alike.
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&kind_name), &info) == 0 || !info.dli_fname)
        return fs::path("rtkit") / "plugins";
    std::error_code ec;
    fs::path lib = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    if (ec) lib = fs::path(info.dli_fname);
    return lib.parent_path() / "rtkit" / "plugins";
}

plugin_info plugin_loader::inspect(const std::filesystem::path& file) const {
    return load_checked(file, policy_).info;
}

bool plugin_loader::is_plugin_file_name(const std::filesystem::path& file) {
    const std::string name = file.filename().string();
    if (!name.starts_with("rtkit_") || !name.ends_with(".so")) return false;
    for (const std::uint32_t kind :
         {RTKIT_PLUGIN_REACTOR, RTKIT_PLUGIN_TIMER, RTKIT_PLUGIN_LANES}) {
        const std::string prefix = "rtkit_" + kind_text(kind) + "_";
        if (name.starts_with(prefix) && name.size() > prefix.size() + 3) return true;
    }
    return false;
}

search_path_survey plugin_loader::survey() const {
    search_path_survey found;
    for (const fs::path& dir : dirs_)
        for (const fs::path& file : shared_libraries_in(dir)) {
            if (!is_plugin_file_name(file)) {
                found.skipped.push_back(file);
                continue;
            }
            try {
                plugin_info info = inspect(file);
                check_file_name(info);
                for (const plugin_info& earlier : found.plugins)
                    if (earlier.shadowed_by.empty() && earlier.kind == info.kind &&
                        earlier.name == info.name) {
                        info.shadowed_by = earlier.file;
                        break;
                    }
                found.plugins.push_back(std::move(info));
            } catch (const plugin_error& e) {
                found.refused.push_back({file, e.what()});
            }
        }
    return found;
}

std::vector<plugin_info> plugin_loader::list() const {
    return survey().plugins;
}

std::filesystem::path plugin_loader::find(rtkit_plugin_kind kind, std::string_view name) const {
    const std::string kind_str(kind_name(kind));
    if (name.empty() || name.find('/') != std::string_view::npos)
        throw plugin_error("'" + std::string(name) + "' is not a valid " + kind_str +
                           " plugin name; names are identifiers such as 'epoll'");
    // Directory by directory, so the first match in search order wins. Only
    // the file named after the plugin is opened: a search never runs the
    // start-up code of another library that happens to sit in a directory.
    const std::string file_name = plugin_file_name(kind, name);
    std::vector<std::string> broken;  // why files of that name were refused
    for (const fs::path& dir : dirs_) {
        const fs::path file = dir / file_name;
        std::error_code ec;
        if (!fs::exists(file, ec)) continue;
        try {
            const plugin_info info = inspect(file);
            check_file_name(info);
            return file;
        } catch (const plugin_error& e) {
            broken.push_back(e.what());
        }
    }
    std::vector<std::string> known;
    for (const plugin_info& info : list())
        if (info.kind == kind && info.shadowed_by.empty())
            known.push_back(info.name + " (" + info.file.string() + ")");
    std::string message = "no " + kind_str + " plugin named '" + std::string(name) + "'; known " +
                          kind_str + " plugins: ";
    for (std::size_t i = 0; i < known.size(); ++i)
        message += (i ? ", " : "") + known[i];
    if (known.empty()) message += "(none)";
    message += "; searched for " + file_name + " in: " + joined(dirs_);
    for (const std::string& why : broken)
        message += "; " + why;
    message +=
        ". Use a known name, or add the plugin's directory to [plugins] search_path or "
        "RTKIT_PLUGIN_PATH";
    throw plugin_error(message);
}

std::shared_ptr<plugin_object> plugin_loader::create_erased(const std::filesystem::path& file,
                                                            std::uint32_t kind,
                                                            const option_table& options) const {
    checked_plugin plugin = load_checked(file, policy_);
    const plugin_info& info = plugin.info;
    const std::string where = "plugin '" + info.name + "' (" + info.file.string() + ")";
    if (info.kind != kind)
        throw plugin_error("file " + quoted(info.file) + " is " + with_article(info.kind) +
                           " plugin named '" + info.name + "', expected " + with_article(kind) +
                           "; choose " + with_article(kind) + " plugin for this setting");

    for (const auto& configured : options) {
        // Not a structured binding: clang 14 (the fuzz preset) cannot capture one.
        const std::string& key = configured.first;
        const bool declared =
            std::any_of(info.options.begin(), info.options.end(),
                        [&](const plugin_option_info& o) { return o.name == key; });
        if (declared) continue;
        std::string valid;
        for (const plugin_option_info& o : info.options)
            valid += (valid.empty() ? "" : ", ") + o.name;
        throw plugin_error(
            where + " has no option '" + key + "'; " +
            (valid.empty() ? std::string("it takes no options") : "valid options: " + valid));
    }

    // The values handed to the factory point into `strings`, which lives until
    // create() returns: a plugin reads its options in its constructor only.
    std::deque<std::string> strings;
    std::vector<rtkit_option_value> values;
    values.reserve(info.options.size());
    for (const plugin_option_info& o : info.options) {
        const auto configured = options.find(o.name);
        const option_value value = configured != options.end()
                                       ? configured->second
                                       : parse_default(o, info.name, info.file);
        check_value(o, value, where);
        rtkit_option_value out{o.name.c_str(), static_cast<std::uint32_t>(o.type), 0, nullptr};
        if (const bool* b = std::get_if<bool>(&value)) out.int_value = *b ? 1 : 0;
        if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) out.int_value = *i;
        if (const std::string* s = std::get_if<std::string>(&value))
            out.string_value = strings.emplace_back(*s).c_str();
        values.push_back(out);
    }
    const rtkit_plugin_args args{sizeof(rtkit_plugin_args), values.data(),
                                 static_cast<std::uint32_t>(values.size())};

    plugin_object* object = nullptr;
    try {
        object = plugin.descriptor->create(&args);
    } catch (const std::exception& e) {
        throw plugin_error(where + " failed to start: " + e.what());
    } catch (...) {
        throw plugin_error(where + " failed to start: its factory threw a non-standard exception");
    }
    if (object == nullptr)
        throw plugin_error(where + " failed to start: its factory returned no object");

    // The deleter owns a reference to the library: the code that destroys the
    // object (and its vtable) stays mapped until the object is gone.
    std::shared_ptr<plugin_object> owned(
        object, [destroy = plugin.descriptor->destroy, library = plugin.library](plugin_object* p) {
            destroy(p);
        });
    // Only now is the object used as what the descriptor says it is.
    const plugin_identity made = object->identity();
    if (made.kind != info.kind || made.abi_major != RTKIT_PLUGIN_ABI_MAJOR)
        throw plugin_error(where + " is not what its descriptor says: the descriptor declares " +
                           with_article(info.kind) + " of plugin ABI " +
                           std::to_string(info.abi_major) + ".x, but its factory made " +
                           with_article(made.kind) + " object of plugin ABI " +
                           std::to_string(made.abi_major) +
                           ".x; fix the plugin's descriptor (rtkit::make_plugin_descriptor "
                           "derives the kind from the implemented interface)");
    return owned;
}

}  // namespace rtkit
