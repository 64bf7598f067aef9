#include "rtkit/net/unix_stream.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include "connect_socket.hpp"
#include "net_error.hpp"
#include "rtkit/net/unix_listener.hpp"

namespace rtkit::net {

task<unix_stream> unix_stream::connect(std::string_view path) {
    registered_fd fd =
        co_await detail::connect_socket(socket_address::unix_path(path), std::nullopt);
    co_return unix_stream(std::move(fd));
}

std::pair<unix_stream, unix_stream> unix_stream::pair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) < 0)
        detail::throw_errno(errno, "socketpair(AF_UNIX)");
    registered_fd first;
    try {
        first = registered_fd(fds[0], fd_kind::socket);
    } catch (...) {
        ::close(fds[1]);
        throw;
    }
    return {unix_stream(std::move(first)), unix_stream(registered_fd(fds[1], fd_kind::socket))};
}

void unix_stream::shutdown(shutdown_how how) {
    if (::shutdown(fd_.get(), static_cast<int>(how)) < 0)
        detail::throw_errno(errno, "shutdown of " + fd_.describe());
}

unix_listener unix_listener::bind(std::string_view path, int backlog) {
    const socket_address address = socket_address::unix_path(path);
    const int raw = detail::open_stream_socket(AF_UNIX, address);
    if (::bind(raw, address.data(), address.size()) < 0 || ::listen(raw, backlog) < 0) {
        const int error = errno;
        ::close(raw);
        detail::throw_errno(error, "listen on " + address.to_string());
    }
    unix_listener l;
    l.fd_ = registered_fd(raw, fd_kind::socket, address);
    return l;
}

task<unix_stream> unix_listener::accept() {
    socket_address peer;
    socklen_t size = socket_address::capacity();
    io_request request;
    request.op = io_opcode::accept;
    request.fd = fd_.get();
    request.address = peer.data();
    request.address_length = &size;
    request.flags = SOCK_NONBLOCK | SOCK_CLOEXEC;
    const int accepted = static_cast<int>(co_await detail::io_operation(fd_, request));
    // An unnamed client: describe it by the listener's path.
    co_return unix_stream(registered_fd(accepted, fd_kind::socket, fd_.peer()));
}

}  // namespace rtkit::net
