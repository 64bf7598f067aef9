// The export of the lab lane policy plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "lab_policy.hpp"

namespace {

constexpr rtkit_option_decl lab_options[] = {
    {"seed", RTKIT_OPTION_INT, "0", 0, INT64_MAX, nullptr,
     "seeds the generator: the same seed and the same calls give the same picks"},
    {"window", RTKIT_OPTION_INT, "1024", 1, 1048576, nullptr,
     "how many of the earliest queued entries each pick is among (8 bytes each)"},
};

constexpr rtkit_plugin_descriptor lab_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, rtkit_lanes::lab_policy>(
        "lab", "1.0.0",
        "picks the next task at random from a seeded generator, for replayable runs", lab_options,
        2);

}  // namespace

RTKIT_EXPORT_PLUGIN(lab_descriptor)
