#pragma once
// rtkit::net::unix_listener: a listening Unix-domain stream socket.
#include <string_view>

#include "rtkit/net/registered_fd.hpp"
#include "rtkit/net/unix_stream.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// A listening AF_UNIX stream socket bound to a filesystem path. The path
/// must not exist (EADDRINUSE otherwise); the listener does not unlink it.
class unix_listener {
  public:
    unix_listener() noexcept = default;
    static unix_listener bind(std::string_view path, int backlog = 1024);
    /// Waits for the next connection; a cancellation point. Any number of
    /// tasks may wait at once, and close() ends their waits with EBADF, as
    /// for tcp_listener::accept().
    task<unix_stream> accept();
    void close() noexcept { fd_.close(); }

  private:
    registered_fd fd_;
};

}  // namespace rtkit::net
