// The export of the kqueue reactor plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "kqueue_reactor.hpp"

namespace {

constexpr rtkit_option_decl kqueue_options[] = {
    {"events_per_poll", RTKIT_OPTION_INT, "256", 1, 65536, nullptr,
     "most events fetched by one kevent call; more are fetched by the next poll"},
};

constexpr rtkit_plugin_descriptor kqueue_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, rtkit_kqueue::kqueue_reactor>(
        "kqueue", "1.0.0", "edge-triggered (EV_CLEAR) kqueue readiness reactor for BSD and macOS",
        kqueue_options, 1);

}  // namespace

RTKIT_EXPORT_PLUGIN(kqueue_descriptor)
