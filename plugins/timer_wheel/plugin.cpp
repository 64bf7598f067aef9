// The export of the timing wheel plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "timing_wheel.hpp"

namespace {

constexpr rtkit_option_decl wheel_options[] = {
    {"tick_us", RTKIT_OPTION_INT, "1000", 10, 1000000, nullptr,
     "wheel resolution in microseconds; next_deadline is rounded up to it"},
    {"levels", RTKIT_OPTION_INT, "6", 1, 10, nullptr,
     "wheel levels; deadlines beyond slots_per_level^levels ticks wait in overflow lists"},
    {"slots_per_level", RTKIT_OPTION_INT, "64", 2, 64, nullptr,
     "slots per level: a power of two (2, 4, 8, 16, 32 or 64)"},
};

constexpr rtkit_plugin_descriptor wheel_descriptor =
    rtkit::make_plugin_descriptor<rtkit::timer_driver, rtkit_wheel::timing_wheel>(
        "wheel", "1.1.0",
        "hierarchical timing wheel: 6 levels x 64 slots by default, O(1) insert and cancel",
        wheel_options, 3);

}  // namespace

RTKIT_EXPORT_PLUGIN(wheel_descriptor)
