#pragma once
// rtkit::net::tcp_listener: a listening TCP socket.
#include "rtkit/net/registered_fd.hpp"
#include "rtkit/net/socket_address.hpp"
#include "rtkit/net/tcp_stream.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// A bound, listening TCP socket (SO_REUSEADDR). bind() needs a runtime's
/// worker on this thread (inside a task or a block_on root).
class tcp_listener {
  public:
    tcp_listener() noexcept = default;

    /// Binds and listens; port 0 picks a free port (see local_address()).
    /// Throws std::system_error naming the address (EADDRINUSE, EACCES, ...).
    static tcp_listener bind(const socket_address& address, int backlog = 1024);

    /// Waits for the next connection. Any number of tasks may wait at once;
    /// each connection goes to one of them. A cancellation point; a
    /// connection that was accepted when the cancel arrived is returned,
    /// never leaked. Throws std::system_error(EBADF) once the listener is
    /// closed, also when it is closed while this waits.
    task<tcp_stream> accept();

    /// The bound address (with the port the kernel chose).
    socket_address local_address() const;
    /// Closes now: every task waiting in accept() ends with EBADF (see
    /// accept()). The destructor does it too.
    void close() noexcept { fd_.close(); }
    int native_handle() const noexcept { return fd_.get(); }

  private:
    registered_fd fd_;
};

}  // namespace rtkit::net
