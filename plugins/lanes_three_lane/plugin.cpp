// The export of the three-lane policy plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "three_lane_policy.hpp"

namespace {

constexpr rtkit_option_decl three_lane_options[] = {
    {"cancel_streak_limit", RTKIT_OPTION_INT, "16", 1, 1024, nullptr,
     "consecutive cancel-lane pops before a waiting ready or deferred task gets a turn"},
    {"ready_streak_limit", RTKIT_OPTION_INT, "16", 1, 1024, nullptr,
     "consecutive ready-lane (woken) pops before a waiting deferred (new, yielded) task gets a "
     "turn"},
};

constexpr rtkit_plugin_descriptor three_lane_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, rtkit_lanes::three_lane_policy>(
        "three_lane", "2.3.0",
        "cancel lane first, then woken tasks, then new and yielded ones, with streak limits",
        three_lane_options, 2);

}  // namespace

RTKIT_EXPORT_PLUGIN(three_lane_descriptor)
