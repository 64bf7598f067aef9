#pragma once
// rtkit::plugin_object: the base of every object a plugin's factory makes, and
// the ABI version it is checked against.
#include <cstdint>

/// ABI major: bumped when the descriptor or an interface changes incompatibly.
/// The loader refuses any other major.
#define RTKIT_PLUGIN_ABI_MAJOR 2u
/// ABI minor: bumped when fields are added at the end of the descriptor. The
/// loader refuses a plugin built against a newer minor than its own.
#define RTKIT_PLUGIN_ABI_MINOR 0u

extern "C" {

/// What a plugin provides.
enum rtkit_plugin_kind : std::uint32_t {
    RTKIT_PLUGIN_REACTOR = 1,
    RTKIT_PLUGIN_TIMER = 2,
    RTKIT_PLUGIN_LANES = 3,
};

}  // extern "C"

namespace rtkit {

/// What a plugin object says it is: the interface it implements and the ABI
/// major of the headers that interface was compiled from.
struct plugin_identity {
    rtkit_plugin_kind kind;
    std::uint32_t abi_major;
};

/// The common base of reactor, timer_driver and lane_policy. A factory returns
/// its object as a plugin_object*, and the loader asks identity() before it
/// uses the object as anything else: a descriptor that claims one kind while
/// its factory makes another is refused instead of crashing the process.
///
/// Each interface implements identity() (final) in its header, so the answer
/// is compiled into the plugin from the headers it was built with.
class plugin_object {
  public:
    virtual ~plugin_object() = default;

    /// Which interface this object implements. Any thread; never throws.
    virtual plugin_identity identity() const noexcept = 0;

    /// An extension interface by its versioned name ("rtkit.completion.v1"),
    /// or nullptr. Interfaces grow this way, never by new virtuals on an old
    /// one. The pointer lives as long as the object. Each interface says which
    /// threads may call it.
    virtual void* query_interface(const char* name) noexcept {
        (void)name;
        return nullptr;
    }
};

}  // namespace rtkit
