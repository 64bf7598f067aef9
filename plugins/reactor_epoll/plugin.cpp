// The export of the epoll reactor plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "epoll_reactor.hpp"

namespace {

constexpr rtkit_option_decl epoll_options[] = {
    {"events_per_poll", RTKIT_OPTION_INT, "256", 1, 65536, nullptr,
     "most events fetched by one epoll_wait; more are fetched by the next poll"},
};

constexpr rtkit_plugin_descriptor epoll_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, rtkit_epoll::epoll_reactor>(
        "epoll", "1.0.0", "edge-triggered epoll readiness reactor with an eventfd wake",
        epoll_options, 1);

}  // namespace

RTKIT_EXPORT_PLUGIN(epoll_descriptor)
