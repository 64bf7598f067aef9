#pragma once
// rtkit::net::udp_socket: datagrams over UDP, IPv4 or IPv6.
#include <cstddef>
#include <string_view>

#include "rtkit/net/io_operation.hpp"
#include "rtkit/net/registered_fd.hpp"
#include "rtkit/net/socket_address.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// One datagram that recv_from received: how many bytes of it fit into the
/// buffer (the rest of a longer one is lost, as with recvfrom(2)) and where
/// it came from.
struct received_datagram {
    std::size_t size = 0;
    socket_address from;
};

/// A UDP socket. bind() it; then send_to / recv_from any peer, or connect()
/// it to one peer and use send / recv (which then only exchange datagrams
/// with that peer, and report its ICMP errors: a recv after a datagram sent
/// to a closed port throws ECONNREFUSED). Each operation moves one whole
/// datagram and is a cancellation point: a cancelled recv takes nothing, so
/// the datagram waits for the next one. send and recv use the reactor's
/// completion interface when it has one (io_uring: SEND and READ
/// submissions) and accept `.with_deadline(t)`; send_to and recv_from wait
/// for readiness on every reactor. One receiving and one sending task at a
/// time. Errors are std::system_error naming the operation and the address.
///
/// Create, use and destroy it as a tcp_stream (in a task or a block_on root;
/// see registered_fd for destruction elsewhere).
class udp_socket {
  public:
    udp_socket() noexcept = default;

    /// A socket bound to `local` (port 0: the system picks one; see
    /// local_address()). Throws std::system_error (EADDRINUSE, ...).
    static udp_socket bind(const socket_address& local);

    /// Makes `peer` the only one this socket exchanges datagrams with, for
    /// send and recv. No packet is sent. Throws std::system_error.
    void connect(const socket_address& peer);

    /// Sends `data` as one datagram to `to`; returns its size. A datagram
    /// larger than the path allows fails with EMSGSIZE.
    task<std::size_t> send_to(const void* data, std::size_t size, socket_address to);
    task<std::size_t> send_to(std::string_view text, socket_address to) {
        return send_to(text.data(), text.size(), to);
    }
    /// Receives the next datagram from anyone into `buffer`.
    task<received_datagram> recv_from(void* buffer, std::size_t size);

    /// Connected: sends `data` as one datagram to the peer.
    detail::io_operation send(const void* data, std::size_t size) noexcept {
        io_request r;
        r.op = io_opcode::send;
        r.fd = fd_.get();
        r.buffer = const_cast<void*>(data);  // only read by send
        r.length = size;
        r.flags = MSG_NOSIGNAL;
        return detail::io_operation(fd_, r);
    }
    detail::io_operation send(std::string_view text) noexcept {
        return send(text.data(), text.size());
    }
    /// Connected: receives the peer's next datagram; returns how many of its
    /// bytes fit into `buffer`.
    detail::io_operation recv(void* buffer, std::size_t size) noexcept {
        io_request r;
        // read(2), not recv: a completion reactor may buffer plain recvs of
        // a socket as a byte stream, which would merge datagrams.
        r.op = io_opcode::read;
        r.fd = fd_.get();
        r.buffer = buffer;
        r.length = size;
        return detail::io_operation(fd_, r);
    }

    /// The bound address, with the port the system picked.
    socket_address local_address() const;
    /// The connected peer, or the bound address before connect().
    const socket_address& peer_address() const noexcept { return fd_.peer(); }
    /// Closes now (deregisters first). The destructor does it too.
    void close() noexcept { fd_.close(); }
    bool is_open() const noexcept { return fd_.is_open(); }
    int native_handle() const noexcept { return fd_.get(); }

  private:
    explicit udp_socket(registered_fd fd) noexcept : fd_(std::move(fd)) {}
    registered_fd fd_;
};

}  // namespace rtkit::net
