#include "rtkit/net/tcp_stream.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "connect_socket.hpp"
#include "net_error.hpp"

namespace rtkit::net {

task<tcp_stream> tcp_stream::connect(socket_address peer, std::optional<duration> timeout) {
    registered_fd fd = co_await detail::connect_socket(peer, timeout);
    co_return tcp_stream(std::move(fd));
}

void tcp_stream::shutdown(shutdown_how how) {
    if (::shutdown(fd_.get(), static_cast<int>(how)) < 0)
        detail::throw_errno(errno, "shutdown of " + fd_.describe());
}

void tcp_stream::set_nodelay(bool on) {
    const int value = on ? 1 : 0;
    if (::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &value, sizeof value) < 0)
        detail::throw_errno(errno, "setsockopt(TCP_NODELAY) on " + fd_.describe());
}

socket_address tcp_stream::local_address() const {
    socket_address a;
    socklen_t size = socket_address::capacity();
    if (::getsockname(fd_.get(), a.data(), &size) < 0)
        detail::throw_errno(errno, "getsockname of " + fd_.describe());
    a.set_size(size);
    return a;
}

}  // namespace rtkit::net
