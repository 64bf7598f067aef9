// The export of the poll reactor plugin: its descriptor and nothing else.
#include <rtkit/plugin.hpp>

#include "poll_reactor.hpp"

namespace {

// No options: poll(2) has nothing to tune. A plugin with options lists them
// here as rtkit_option_decl entries (see README.md) and passes the array and
// its size instead of nullptr, 0.
constexpr rtkit_plugin_descriptor poll_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, example_poll::poll_reactor>(
        "poll", "1.0.0", "portable level-triggered poll(2) reactor (third-party example)", nullptr,
        0);

}  // namespace

RTKIT_EXPORT_PLUGIN(poll_descriptor)
