#include "uring_probe.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <utility>

#include "provided_buffers.hpp"

namespace rtkit_uring {
namespace {

struct required_opcode {
    int op;
    const char* name;
};

/// Everything the reactor submits: readiness (POLL_ADD/REMOVE), whole
/// operations for rtkit::net, cancellation, and the eventfd read behind wake().
constexpr required_opcode required_opcodes[] = {
    {IORING_OP_POLL_ADD, "POLL_ADD"},
    {IORING_OP_POLL_REMOVE, "POLL_REMOVE"},
    {IORING_OP_ACCEPT, "ACCEPT"},
    {IORING_OP_CONNECT, "CONNECT"},
    {IORING_OP_RECV, "RECV"},
    {IORING_OP_SEND, "SEND"},
    {IORING_OP_READ, "READ"},
    {IORING_OP_WRITE, "WRITE"},
    {IORING_OP_ASYNC_CANCEL, "ASYNC_CANCEL"},
};

[[noreturn]] void refuse(int error, const std::string& why) {
    throw std::system_error(error, std::generic_category(), why);
}

/// What to tell the operator for an io_uring_setup errno.
std::string setup_advice(int error) {
    switch (error) {
        case ENOSYS:
            return "io_uring_setup failed with ENOSYS: this kernel has no io_uring (Linux 5.1+ "
                   "needed, or it was compiled out); use the epoll reactor";
        case EPERM:
            return "io_uring_setup failed with EPERM: io_uring is forbidden for this process "
                   "(seccomp filter, container policy, or kernel.io_uring_disabled); use the "
                   "epoll reactor";
        case ENOMEM:
            return "io_uring_setup failed with ENOMEM: no memory for the ring (RLIMIT_MEMLOCK "
                   "on kernels before 5.12?); lower [reactor.uring] entries";
        default:
            return std::string("io_uring_setup failed with errno ") + std::to_string(error) + " (" +
                   std::strerror(error) + ")";
    }
}

/// kernel.io_uring_disabled (Linux 6.6+): 0 allowed, 1 only for members of
/// kernel.io_uring_group and privileged processes, 2 forbidden for everyone.
int io_uring_disabled_setting() {
    std::ifstream in("/proc/sys/kernel/io_uring_disabled");
    int value = 0;
    if (in >> value) return value;
    return 0;  // older kernel: no such switch
}

}  // namespace

bool multishot_recv_works() {
    io_uring ring{};
    if (io_uring_queue_init(8, &ring, 0) < 0) return false;
    bool works = false;
    {
        provided_buffers buffers;
        int fds[2] = {-1, -1};
        if (buffers.setup(ring, 2, 64) == 0 &&
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0) {
            io_uring_sqe* sqe = io_uring_get_sqe(&ring);  // the ring is empty
            io_uring_prep_recv_multishot(sqe, fds[0], nullptr, 0, 0);
            sqe->flags |= IOSQE_BUFFER_SELECT;
            sqe->buf_group = provided_buffers::group;
            const char byte = 'p';
            works = write(fds[1], &byte, 1) == 1 && io_uring_submit(&ring) == 1;
            close(fds[1]);  // end of stream: a live multishot recv ends with it
            // The first completion carries the byte (and MORE) where multishot
            // recv exists, -EINVAL where it does not; wait for the recv's last
            // completion, so that nothing is in flight when the ring closes.
            bool first = true;
            for (bool more = works; more;) {
                __kernel_timespec limit{1, 0};
                io_uring_cqe* cqe = nullptr;
                if (io_uring_wait_cqe_timeout(&ring, &cqe, &limit) < 0) {
                    works = false;
                    break;
                }
                if (std::exchange(first, false))
                    works = cqe->res == 1 && (cqe->flags & IORING_CQE_F_MORE) &&
                            (cqe->flags & IORING_CQE_F_BUFFER);
                more = cqe->flags & IORING_CQE_F_MORE;
                io_uring_cqe_seen(&ring, cqe);
            }
            close(fds[0]);
        }
        buffers.teardown(ring);
    }
    io_uring_queue_exit(&ring);
    return works;
}

std::string required_opcode_names() {
    std::string names;
    for (const required_opcode& r : required_opcodes)
        names += (names.empty() ? "" : ", ") + std::string(r.name);
    return names;
}

void open_ring(io_uring& ring, const ring_settings& settings) {
    if (settings.fail_probe_errno != 0)
        refuse(settings.fail_probe_errno,
               "fault injection ([reactor.uring] test_fail_probe_errno = " +
                   std::to_string(settings.fail_probe_errno) +
                   "): " + setup_advice(settings.fail_probe_errno));
    if (io_uring_disabled_setting() == 2)
        refuse(EPERM,
               "kernel.io_uring_disabled = 2: io_uring is disabled on this machine for every "
               "process (sysctl kernel.io_uring_disabled=0 enables it); use the epoll reactor");

    // Without single_issuer: no COOP_TASKRUN, SINGLE_ISSUER or DEFER_TASKRUN,
    // since the ring is shared by threads. The kernel completes a request in
    // the thread that submitted it; on a multi-thread runtime that thread may
    // be parked on a futex while another waits in the ring, and only the
    // default notification (which interrupts such a wait) posts the
    // completion. (The current-thread runtime also hands its worker between
    // threads: block_on borrows it.)
    io_uring_params params{};
    if (settings.single_issuer) {
        if (settings.sqpoll)
            refuse(EINVAL,
                   "[reactor.uring] single_issuer and sqpoll cannot be combined (the kernel's "
                   "deferred task work needs the issuer itself to enter the ring); drop one");
        // Task work runs in batches inside the issuer's own io_uring_enter,
        // and TASKRUN_FLAG says when some waits, so a poll that does not
        // block enters only then. Disabled until the first driver enables it.
        params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                       IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED;
    }
    if (settings.sqpoll) {
        params.flags = IORING_SETUP_SQPOLL;
        params.sq_thread_idle = 50;  // ms before the poller thread sleeps
    }
    int rc = io_uring_queue_init_params(settings.entries, &ring, &params);
    if (rc < 0) {
        if (io_uring_disabled_setting() == 1 && -rc == EPERM)
            refuse(EPERM,
                   "kernel.io_uring_disabled = 1: io_uring is limited to kernel.io_uring_group "
                   "and privileged processes; use the epoll reactor");
        if (settings.single_issuer && -rc == EINVAL)
            refuse(EINVAL,
                   "io_uring_setup refused SINGLE_ISSUER | DEFER_TASKRUN with EINVAL (Linux "
                   "6.1+ needed); drop [reactor.uring] single_issuer");
        refuse(-rc, setup_advice(-rc));
    }

    io_uring_probe* probe = io_uring_get_probe_ring(&ring);
    if (!probe) {
        io_uring_queue_exit(&ring);
        refuse(ENOSYS, "io_uring opcode probe failed (kernel before 5.6); use the epoll reactor");
    }
    std::string missing;
    for (const required_opcode& r : required_opcodes)
        if (!io_uring_opcode_supported(probe, r.op))
            missing += (missing.empty() ? "" : ", ") + std::string(r.name);
    io_uring_free_probe(probe);
    if (!missing.empty()) {
        io_uring_queue_exit(&ring);
        refuse(EOPNOTSUPP, "the kernel's io_uring lacks opcode(s) " + missing +
                               " that the reactor needs; use the epoll reactor");
    }
}

}  // namespace rtkit_uring
