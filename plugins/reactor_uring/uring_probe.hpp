#pragma once
// rtkit_uring::open_ring: the real probe that decides whether io_uring can start.
#include <liburing.h>

#include <string>

namespace rtkit_uring {

/// How the ring is set up.
struct ring_settings {
    unsigned entries = 256;  ///< submission queue size (the completion queue is twice that)
    bool sqpoll = false;     ///< a kernel thread polls the submission queue
    /// One thread drives the ring: SINGLE_ISSUER | DEFER_TASKRUN, enabled (and
    /// so bound) by the first thread that enters it.
    bool single_issuer = false;
    /// Fault injection: when nonzero, the probe fails as if io_uring_setup had
    /// returned this errno (1 EPERM, 38 ENOSYS, ...), before touching the kernel.
    int fail_probe_errno = 0;
    /// Fault injection: this many re-arms of the eventfd READ behind wake()
    /// (after its completions) fail as if no submission entry could be had.
    unsigned fail_wake_rearms = 0;
    /// Provided buffers for multishot recv (0: no buffered recv) and their size.
    unsigned recv_buffers = 256;
    unsigned recv_buffer_size = 4096;
    /// Slots of the ring's registered-file table (0: none); capped by RLIMIT_NOFILE.
    unsigned fixed_files = 4096;
};

/// Creates `ring` and checks that it can do everything the reactor needs:
/// kernel.io_uring_disabled allows it, io_uring_setup succeeds, and every
/// opcode the reactor submits is supported. Throws std::system_error whose
/// message says which check failed and what to do; the ring is not left open.
/// A single_issuer ring is left disabled: the first thread that calls
/// enables it (IORING_REGISTER_ENABLE_RINGS) becomes its only issuer.
void open_ring(io_uring& ring, const ring_settings& settings);

/// Whether this kernel can do a multishot recv into provided buffers (buffer
/// rings need Linux 5.19, multishot recv 6.0): tries one on a socketpair, on
/// a small ring of its own.
bool multishot_recv_works();

/// The opcodes the reactor submits, for messages.
std::string required_opcode_names();

}  // namespace rtkit_uring
