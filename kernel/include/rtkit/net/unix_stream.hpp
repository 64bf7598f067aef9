#pragma once
// rtkit::net::unix_stream: a connected Unix-domain stream socket.
#include <string_view>
#include <utility>

#include "rtkit/net/byte_stream.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// A connected AF_UNIX stream: the byte_stream operations plus shutdown.
/// Made by connect(), pair() or unix_listener::accept().
class unix_stream : public byte_stream {
  public:
    unix_stream() noexcept = default;
    explicit unix_stream(registered_fd fd) noexcept : byte_stream(std::move(fd)) {}

    /// Connects to the socket at `path`. A cancellation point; throws
    /// std::system_error (ENOENT, ECONNREFUSED, ...) naming the path.
    static task<unix_stream> connect(std::string_view path);
    /// Two connected streams (socketpair).
    static std::pair<unix_stream, unix_stream> pair();

    void shutdown(shutdown_how how);
};

}  // namespace rtkit::net
