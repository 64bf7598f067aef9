// The export of the timer heap plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "timer_heap.hpp"

namespace {

constexpr rtkit_option_decl heap_options[] = {
    {"arity", RTKIT_OPTION_INT, "4", 2, 16, nullptr,
     "children per heap node: more makes insert cheaper and removing the earliest dearer"},
};

constexpr rtkit_plugin_descriptor heap_descriptor =
    rtkit::make_plugin_descriptor<rtkit::timer_driver, rtkit_heap::timer_heap>(
        "heap", "1.0.0", "d-ary heap: exact deadline order, O(log n) insert and cancel",
        heap_options, 1);

}  // namespace

RTKIT_EXPORT_PLUGIN(heap_descriptor)
