// The export of the FIFO lane policy plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "fifo_policy.hpp"

namespace {

constexpr rtkit_plugin_descriptor fifo_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, rtkit_lanes::fifo_policy>(
        "fifo", "1.0.0", "one FIFO for both lanes, cancellations not put first: the baseline",
        nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(fifo_descriptor)
