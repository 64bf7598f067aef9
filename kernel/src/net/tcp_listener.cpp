#include "rtkit/net/tcp_listener.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "connect_socket.hpp"
#include "net_error.hpp"

namespace rtkit::net {

tcp_listener tcp_listener::bind(const socket_address& address, int backlog) {
    const int raw = detail::open_stream_socket(address.family(), address);
    const int one = 1;
    ::setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(raw, address.data(), address.size()) < 0 || ::listen(raw, backlog) < 0) {
        const int error = errno;
        ::close(raw);
        detail::throw_errno(error, "listen on " + address.to_string());
    }
    // Describe it by the bound address, with the port the kernel chose.
    socket_address bound = address;
    socklen_t size = socket_address::capacity();
    if (::getsockname(raw, bound.data(), &size) == 0) bound.set_size(size);
    tcp_listener l;
    l.fd_ = registered_fd(raw, fd_kind::socket, bound);
    return l;
}

socket_address tcp_listener::local_address() const {
    socket_address a;
    socklen_t size = socket_address::capacity();
    if (::getsockname(fd_.get(), a.data(), &size) < 0)
        detail::throw_errno(errno, "getsockname of listener " + fd_.describe());
    a.set_size(size);
    return a;
}

task<tcp_stream> tcp_listener::accept() {
    socket_address peer;
    socklen_t size = socket_address::capacity();
    io_request request;
    request.op = io_opcode::accept;
    request.fd = fd_.get();
    request.address = peer.data();
    request.address_length = &size;
    request.flags = SOCK_NONBLOCK | SOCK_CLOEXEC;
    const int accepted = static_cast<int>(co_await detail::io_operation(fd_, request));
    peer.set_size(size);
    co_return tcp_stream(registered_fd(accepted, fd_kind::socket, peer));
}

}  // namespace rtkit::net
