// The export of the io_uring reactor plugin: its descriptor and nothing else.
#include "rtkit/plugin.hpp"
#include "uring_reactor.hpp"

namespace {

constexpr rtkit_option_decl uring_options[] = {
    {"entries", RTKIT_OPTION_INT, "256", 8, 32768, nullptr,
     "submission queue entries (the completion queue gets twice as many)"},
    {"sqpoll", RTKIT_OPTION_BOOL, "false", 0, 0, nullptr,
     "a kernel thread polls the submission queue (costs a core while busy)"},
    {"single_issuer", RTKIT_OPTION_BOOL, "false", 0, 0, nullptr,
     "the ring is the first driving thread's for good (it is by default while one thread "
     "drives it): current_thread runtimes only, which then run tasks only inside block_on on "
     "that thread"},
    {"test_fail_probe_errno", RTKIT_OPTION_INT, "0", 0, 4095, nullptr,
     "fault injection: when nonzero the probe fails with this errno (1 EPERM, 38 ENOSYS)"},
    {"test_fail_wake_rearms", RTKIT_OPTION_INT, "0", 0, 4095, nullptr,
     "fault injection: this many re-arms of the wake-up READ fail as if the queue stayed full"},
    {"recv_buffers", RTKIT_OPTION_INT, "256", 0, 32768, nullptr,
     "provided buffers for multishot recv, rounded down to a power of two (0: plain recv)"},
    {"recv_buffer_size", RTKIT_OPTION_INT, "4096", 64, 1048576, nullptr,
     "bytes per provided recv buffer"},
    {"fixed_files", RTKIT_OPTION_INT, "4096", 0, 1048576, nullptr,
     "registered-file slots: operations on the first this many registrations skip the "
     "kernel's per-request file lookup (0: off; capped by the open-file limit)"},
};

constexpr rtkit_plugin_descriptor uring_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, rtkit_uring::uring_reactor>(
        "uring", "1.0.0",
        "io_uring reactor: multishot-poll readiness plus whole accept/connect/recv/send/read/write",
        uring_options, 8);

}  // namespace

RTKIT_EXPORT_PLUGIN(uring_descriptor)
