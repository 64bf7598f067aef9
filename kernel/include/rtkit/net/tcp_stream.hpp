#pragma once
// rtkit::net::tcp_stream: a connected TCP socket.
#include <optional>
#include <string>

#include "rtkit/net/byte_stream.hpp"
#include "rtkit/net/socket_address.hpp"
#include "rtkit/task.hpp"
#include "rtkit/time.hpp"

namespace rtkit::net {

/// A connected TCP stream: read, read_exact, write, write_all (byte_stream),
/// shutdown. Made by connect() or tcp_listener::accept().
class tcp_stream : public byte_stream {
  public:
    tcp_stream() noexcept = default;
    explicit tcp_stream(registered_fd fd) noexcept : byte_stream(std::move(fd)) {}

    /// Connects to `peer`. With a timeout, gives up after it with
    /// std::system_error(ETIMEDOUT); a refused connection throws ECONNREFUSED.
    /// A cancellation point.
    static task<tcp_stream> connect(socket_address peer,
                                    std::optional<duration> timeout = std::nullopt);
    /// Connects to "host:port" ("localhost:8080", "[::1]:80"): resolves the
    /// host on the blocking pool (net/resolve.hpp), then tries its addresses
    /// in turn until one accepts. A timeout bounds the whole: the lookup and
    /// every attempt (ETIMEDOUT). When every attempt fails, throws the last
    /// error, naming the addresses tried. A cancellation point.
    static task<tcp_stream> connect(std::string host_and_port,
                                    std::optional<duration> timeout = std::nullopt);

    /// Ends one or both directions (the peer reads end of stream after a write
    /// shutdown). Throws std::system_error.
    void shutdown(shutdown_how how);
    /// Disables Nagle's algorithm (small writes go out at once).
    void set_nodelay(bool on);
    const socket_address& peer_address() const noexcept { return fd_.peer(); }
    socket_address local_address() const;
};

}  // namespace rtkit::net
