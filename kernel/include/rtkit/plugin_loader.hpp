#pragma once
// rtkit::plugin_loader: finds plugin files, checks their descriptors, creates
// the objects they provide, and keeps each library loaded while its objects live.
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/plugin.hpp"
#include "rtkit/runtime_config.hpp"

namespace rtkit {

/// A plugin could not be found, loaded, checked or created. what() says what
/// happened, to which file, and what to do about it.
class plugin_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A declared option of a plugin, copied out of its descriptor.
struct plugin_option_info {
    std::string name;
    rtkit_option_type type;
    std::string default_value;
    std::int64_t min_value = 0, max_value = 0;
    std::string allowed;  ///< "a|b|c" or empty
    std::string help;
};

/// What a plugin file declares, copied out of its descriptor.
struct plugin_info {
    std::string name;
    rtkit_plugin_kind kind;
    std::string version;
    std::string description;
    std::uint32_t abi_major = 0, abi_minor = 0;
    std::filesystem::path file;
    std::vector<plugin_option_info> options;
    /// Set by plugin_loader::list() when an earlier file on the search path
    /// provides a plugin of the same kind and name: that one wins, this one is
    /// never loaded by name. Empty otherwise.
    std::filesystem::path shadowed_by;
};

/// What the loader accepts beyond the ABI checks.
struct plugin_load_policy {
    /// Load plugin files that are writable by group or others, or that sit in
    /// a directory that is. Off by default: whoever can write such a file can
    /// run code in every process that loads it. The environment variable
    /// RTKIT_ALLOW_INSECURE_PLUGINS=1 turns it on as well; a runtime sets it
    /// from runtime_config::allow_insecure_plugins ([plugins] allow_insecure).
    bool allow_insecure_permissions = false;
};

/// What the directories of a search path hold, in search order.
struct search_path_survey {
    /// Every plugin that loads (as plugin_loader::list() gives them).
    std::vector<plugin_info> plugins;
    /// Files named as plugins are that the loader refuses, each with why.
    struct refusal {
        std::filesystem::path file;
        std::string reason;
    };
    std::vector<refusal> refused;
    /// The other `.so` files, which the loader never opens.
    std::vector<std::filesystem::path> skipped;
};

/// "reactor", "timer" or "lanes".
std::string_view kind_name(rtkit_plugin_kind kind) noexcept;

/// How an option type reads in a message: "a boolean", "an integer", "a string".
std::string_view option_type_name(rtkit_option_type type) noexcept;
/// The same for the type a configured value has.
std::string_view option_type_name(const option_value& value) noexcept;
/// True when `value` holds what an option of `type` takes.
bool has_option_type(const option_value& value, rtkit_option_type type) noexcept;
/// The values an option's `allowed` list names ("fifo|lifo" -> fifo, lifo).
std::vector<std::string_view> allowed_option_values(std::string_view allowed);

/// Loads plugin libraries with Boost.DLL.
///
/// Built-in plugins live in builtin_dir() (lib/rtkit/plugins beside the kernel
/// library, in the build tree and when installed), so they need no
/// configuration; extra directories come from the configuration and from
/// RTKIT_PLUGIN_PATH (colon-separated), searched after the built-in one. On
/// the search path a plugin is the file rtkit_KIND_NAME.so (KIND reactor,
/// timer or lanes; NAME its descriptor's name), and only files so named are
/// ever opened, so that a directory that also holds ordinary libraries does
/// not get their start-up code run. A name is resolved to the first such file
/// in search order. Files writable by group or others are refused (see
/// plugin_load_policy). A file given by its path (inspect, create) may have
/// any name.
/// Objects returned by create() keep their library loaded. kernel/README.md
/// states the ABI rule and every refusal.
/// Thread-safe: a loader holds no mutable state after construction.
class plugin_loader {
  public:
    /// `extra_dirs` are searched after the built-in directory, then RTKIT_PLUGIN_PATH.
    explicit plugin_loader(std::vector<std::filesystem::path> extra_dirs = {});

    /// As above, with a load policy (RTKIT_ALLOW_INSECURE_PLUGINS=1 still applies).
    plugin_loader(std::vector<std::filesystem::path> extra_dirs, plugin_load_policy policy);

    /// The directory of the built-in plugins.
    static std::filesystem::path builtin_dir();

    /// Every directory searched, in order.
    const std::vector<std::filesystem::path>& search_path() const noexcept { return dirs_; }

    /// The policy in force (the constructor's, with the environment applied).
    const plugin_load_policy& policy() const noexcept { return policy_; }

    /// Opens `file` and checks its permissions and descriptor (alias present, ABI
    /// major equal, minor not newer, descriptor size, toolchain, known kind).
    /// Throws plugin_error.
    plugin_info inspect(const std::filesystem::path& file) const;

    /// Every loadable plugin on the search path, in search order. Files that fail
    /// to load are left out (survey() says why). A plugin hidden by an earlier
    /// one of the same kind and name is listed with shadowed_by set.
    std::vector<plugin_info> list() const;

    /// The plugins of list(), the files named as plugins that are refused, and
    /// the other `.so` files of the search path, left unopened.
    search_path_survey survey() const;

    /// True when `file` is named as a plugin file on a search path is:
    /// rtkit_KIND_NAME.so, KIND one of reactor, timer, lanes.
    static bool is_plugin_file_name(const std::filesystem::path& file);

    /// The file that provides plugin `name` of `kind`. Throws plugin_error
    /// listing the plugins of that kind that exist.
    std::filesystem::path find(rtkit_plugin_kind kind, std::string_view name) const;

    /// Loads `file`, checks it is of kind `Interface`, and creates its object
    /// with `options` (validated against the declared options, defaults filled).
    template <class Interface>
    std::shared_ptr<Interface> create(const std::filesystem::path& file,
                                      const option_table& options = {}) const {
        return std::static_pointer_cast<Interface>(
            create_erased(file, plugin_kind_of<Interface>, options));
    }

    /// find() then create().
    template <class Interface>
    std::shared_ptr<Interface> create_by_name(std::string_view name,
                                              const option_table& options = {}) const {
        return create<Interface>(find(plugin_kind_of<Interface>, name), options);
    }

  private:
    std::shared_ptr<plugin_object> create_erased(const std::filesystem::path& file,
                                                 std::uint32_t kind,
                                                 const option_table& options) const;
    std::vector<std::filesystem::path> dirs_;
    plugin_load_policy policy_;
};

}  // namespace rtkit
