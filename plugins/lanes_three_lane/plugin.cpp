// The export of the three-lane policy plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "three_lane_policy.hpp"

namespace {

constexpr rtkit_option_decl three_lane_options[] = {
    {"cancel_streak_limit", RTKIT_OPTION_INT, "16", 1, 1024, nullptr,
     "consecutive cancel-lane pops before a waiting ready task gets a turn"},
};

constexpr rtkit_plugin_descriptor three_lane_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, rtkit_lanes::three_lane_policy>(
        "three_lane", "2.2.0", "cancel lane first, then ready, with a streak limit",
        three_lane_options, 1);

}  // namespace

RTKIT_EXPORT_PLUGIN(three_lane_descriptor)
