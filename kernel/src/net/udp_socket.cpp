#include "rtkit/net/udp_socket.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "net_error.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/readiness_awaiter.hpp"

namespace rtkit::net {
namespace {

/// Runs `attempt` (a non-blocking syscall: its result, errno set) until it
/// does not fail with EAGAIN, waiting for `want` readiness in between. After
/// an EAGAIN the latched readiness is forgotten; with a shared reactor the
/// syscall is tried once more first, since another worker may have latched
/// new readiness between the EAGAIN and the clear. (What a retry leaves
/// unread is not lost with the latch: every call tries the syscall first.) Another error throws
/// std::system_error with `describe()`'s words.
template <class Attempt, class Describe>
task<long> on_readiness(registered_fd& fd, interest want, Attempt attempt, Describe describe) {
    rtkit::detail::io_registration& registration = fd.registration();
    bool cleared = false;
    while (true) {
        rtkit::detail::check_cancel();
        const long n = attempt();
        if (n >= 0) co_return n;
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) detail::throw_errno(errno, describe());
        if (!cleared) {
            RTKIT_CHAOS_POINT(readiness_clearing);
            registration.clear_ready(static_cast<unsigned>(want) | ready::hangup);
            cleared = true;
            if (registration.shared()) continue;
        }
        (void)co_await rtkit::detail::readiness_awaiter(registration, want);
        cleared = false;
    }
}

}  // namespace

udp_socket udp_socket::bind(const socket_address& local) {
    const int raw = ::socket(local.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (raw < 0) detail::throw_errno(errno, "socket() for udp " + local.to_string());
    if (::bind(raw, local.data(), local.size()) < 0) {
        const int error = errno;
        ::close(raw);
        detail::throw_errno(error, "bind udp to " + local.to_string());
    }
    socket_address bound = local;  // with the port the kernel chose
    socklen_t size = socket_address::capacity();
    if (::getsockname(raw, bound.data(), &size) == 0) bound.set_size(size);
    return udp_socket(registered_fd(raw, fd_kind::datagram, bound));
}

void udp_socket::connect(const socket_address& peer) {
    if (::connect(fd_.get(), peer.data(), peer.size()) < 0)
        detail::throw_errno(errno, "connect udp " + fd_.describe() + " to " + peer.to_string());
    fd_.set_peer(peer);
}

task<std::size_t> udp_socket::send_to(const void* data, std::size_t size, socket_address to) {
    const long n = co_await on_readiness(
        fd_, interest::write,
        [&] {
            return ::syscall(SYS_sendto, fd_.get(), data, size, MSG_NOSIGNAL, to.data(), to.size());
        },
        [&] { return "send_to " + to.to_string() + " from " + fd_.describe(); });
    co_return static_cast<std::size_t>(n);
}

task<received_datagram> udp_socket::recv_from(void* buffer, std::size_t size) {
    received_datagram got;
    socklen_t from_size = 0;
    const long n = co_await on_readiness(
        fd_, interest::read,
        [&] {
            from_size = socket_address::capacity();
            return ::syscall(SYS_recvfrom, fd_.get(), buffer, size, 0, got.from.data(), &from_size);
        },
        [&] { return "recv_from on " + fd_.describe(); });
    got.from.set_size(from_size);
    got.size = static_cast<std::size_t>(n);
    co_return got;
}

socket_address udp_socket::local_address() const {
    socket_address a;
    socklen_t size = socket_address::capacity();
    if (::getsockname(fd_.get(), a.data(), &size) < 0)
        detail::throw_errno(errno, "getsockname of udp " + fd_.describe());
    a.set_size(size);
    return a;
}

}  // namespace rtkit::net
