#pragma once
// The plugin ABI: the descriptor every plugin library exports, and the helpers
// a plugin author uses to fill it. See kernel/README.md for the ABI rule.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/dll/alias.hpp>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin_object.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/timer_driver.hpp"

/// The C++ toolchain a plugin was built with. C++ objects cross the boundary
/// after the descriptor is read, so the standard library and its ABI must match.
#if defined(_LIBCPP_VERSION)
#define RTKIT_TOOLCHAIN_TAG "libc++"
#elif defined(__GLIBCXX__) && _GLIBCXX_USE_CXX11_ABI
#define RTKIT_TOOLCHAIN_TAG "libstdc++/cxx11-abi"
#elif defined(__GLIBCXX__)
#define RTKIT_TOOLCHAIN_TAG "libstdc++/old-abi"
#else
#define RTKIT_TOOLCHAIN_TAG "unknown"
#endif

extern "C" {

/// The type of a plugin option.
enum rtkit_option_type : std::uint32_t {
    RTKIT_OPTION_BOOL = 1,
    RTKIT_OPTION_INT = 2,
    RTKIT_OPTION_STRING = 3,
};

/// One option a plugin accepts, declared so the config layer can validate a
/// plugin's TOML table and `rtctl plugins info` can describe it.
struct rtkit_option_decl {
    const char* name;           ///< key in the plugin's table, e.g. "events_per_poll"
    std::uint32_t type;         ///< rtkit_option_type
    const char* default_value;  ///< as TOML would write it: "256", "true", "\"x\""
    std::int64_t min_value;     ///< RTKIT_OPTION_INT only: inclusive range
    std::int64_t max_value;
    const char* allowed;  ///< RTKIT_OPTION_STRING only: "a|b|c", or nullptr for any
    const char* help;     ///< one line
};

/// One option value handed to a factory; every declared option is present,
/// with its default when the configuration did not set it.
struct rtkit_option_value {
    const char* name;
    std::uint32_t type;
    std::int64_t int_value;    ///< RTKIT_OPTION_BOOL (0/1) and RTKIT_OPTION_INT
    const char* string_value;  ///< RTKIT_OPTION_STRING
};

/// What a factory receives.
struct rtkit_plugin_args {
    std::uint32_t size;  ///< sizeof(rtkit_plugin_args) of the host
    const rtkit_option_value* options;
    std::uint32_t option_count;
};

/// The descriptor a plugin exports under the alias RTKIT_PLUGIN_ALIAS. Plain C
/// layout, so the loader can read and check it before any C++ crosses over.
struct rtkit_plugin_descriptor {
    std::uint32_t abi_major;        ///< RTKIT_PLUGIN_ABI_MAJOR of the plugin's build
    std::uint32_t abi_minor;        ///< RTKIT_PLUGIN_ABI_MINOR of the plugin's build
    std::uint32_t descriptor_size;  ///< sizeof(rtkit_plugin_descriptor) of the plugin's build
    std::uint32_t kind;             ///< rtkit_plugin_kind
    const char* toolchain;          ///< RTKIT_TOOLCHAIN_TAG of the plugin's build
    const char* name;               ///< mechanism name used in TOML, e.g. "epoll"
    const char* version;            ///< the plugin's own version, e.g. "1.0.0"
    const char* description;        ///< one line
    const rtkit_option_decl* options;
    std::uint32_t option_count;
    /// Creates the object: an rtkit::reactor, rtkit::timer_driver or
    /// rtkit::lane_policy as `kind` says, returned as its rtkit::plugin_object
    /// base (the loader checks its identity() against `kind`). May throw; the
    /// loader reports it.
    rtkit::plugin_object* (*create)(const rtkit_plugin_args* args);
    /// Destroys an object made by create (so it is freed by the plugin's code).
    void (*destroy)(rtkit::plugin_object* object);
    void* reserved[8];  ///< zero; room to grow within this major
};

}  // extern "C"

/// The Boost.DLL alias under which every plugin exports its descriptor. It
/// carries the ABI major; the first four fields of the descriptor never move,
/// so the loader can still read the version of a plugin of another major (under
/// its own alias) and say that it must be rebuilt.
#define RTKIT_PLUGIN_ALIAS rtkit_plugin_descriptor_v2
#define RTKIT_PLUGIN_ALIAS_NAME "rtkit_plugin_descriptor_v2"

/// The name prefix of a test-only plugin option (rtkit::is_test_only_option).
#define RTKIT_TEST_OPTION_PREFIX "test_"

/// Exports `descriptor` (an rtkit_plugin_descriptor variable) from this library.
/// Use once per plugin library, at namespace scope.
#define RTKIT_EXPORT_PLUGIN(descriptor) BOOST_DLL_ALIAS(descriptor, RTKIT_PLUGIN_ALIAS)

namespace rtkit {

/// A plugin option whose name starts with RTKIT_TEST_OPTION_PREFIX ("test_")
/// exists for tests (fault injection and the like): the loader and the config
/// layer treat it like any other, and `rtctl config show` and `rtctl plugins
/// info` hide it unless asked (--test-options). A name rather than a flag, so
/// marking an option needs no ABI change; the name also shows in every TOML
/// file that sets one.
constexpr bool is_test_only_option(std::string_view name) noexcept {
    return name.starts_with(RTKIT_TEST_OPTION_PREFIX);
}

/// Maps a plugin interface to its descriptor kind.
template <class Interface>
inline constexpr rtkit_plugin_kind plugin_kind_of = static_cast<rtkit_plugin_kind>(0);
template <>
inline constexpr rtkit_plugin_kind plugin_kind_of<reactor> = RTKIT_PLUGIN_REACTOR;
template <>
inline constexpr rtkit_plugin_kind plugin_kind_of<timer_driver> = RTKIT_PLUGIN_TIMER;
template <>
inline constexpr rtkit_plugin_kind plugin_kind_of<lane_policy> = RTKIT_PLUGIN_LANES;

/// Read access to the option values a factory receives.
class plugin_options {
  public:
    explicit plugin_options(const rtkit_plugin_args* args) : args_(args) {}

    /// The value of an INT or BOOL option; throws std::invalid_argument when the
    /// option is missing (a declared option is always present).
    std::int64_t get_int(std::string_view name) const { return find(name).int_value; }
    bool get_bool(std::string_view name) const { return find(name).int_value != 0; }
    std::string get_string(std::string_view name) const {
        const char* s = find(name).string_value;
        return s ? s : "";
    }

  private:
    const rtkit_option_value& find(std::string_view name) const {
        for (std::uint32_t i = 0; args_ && i < args_->option_count; ++i)
            if (name == args_->options[i].name) return args_->options[i];
        throw std::invalid_argument("plugin option '" + std::string(name) + "' was not passed");
    }
    const rtkit_plugin_args* args_;
};

/// create/destroy functions for a plugin whose object type `Impl` derives from
/// `Interface` and is constructible from plugin_options.
template <class Interface, class Impl>
struct plugin_factory {
    static_assert(std::is_base_of_v<Interface, Impl>, "Impl must implement Interface");
    static plugin_object* create(const rtkit_plugin_args* args) {
        Interface* object = new Impl(plugin_options(args));
        return object;
    }
    static void destroy(plugin_object* object) { delete object; }
};

/// Builds a descriptor for `Impl` (implementing `Interface`), filling the ABI
/// fields from this build. Declare `options` as a static array (or nullptr, 0).
template <class Interface, class Impl>
constexpr rtkit_plugin_descriptor make_plugin_descriptor(const char* name, const char* version,
                                                         const char* description,
                                                         const rtkit_option_decl* options,
                                                         std::uint32_t option_count) {
    return rtkit_plugin_descriptor{RTKIT_PLUGIN_ABI_MAJOR,
                                   RTKIT_PLUGIN_ABI_MINOR,
                                   sizeof(rtkit_plugin_descriptor),
                                   plugin_kind_of<Interface>,
                                   RTKIT_TOOLCHAIN_TAG,
                                   name,
                                   version,
                                   description,
                                   options,
                                   option_count,
                                   &plugin_factory<Interface, Impl>::create,
                                   &plugin_factory<Interface, Impl>::destroy,
                                   {}};
}

}  // namespace rtkit
