#pragma once
// rtkit::net::registered_fd: an owned non-blocking descriptor, registered with
// the reactor of the worker that created it.
#include <string>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/detail/io.hpp"
#include "rtkit/net/socket_address.hpp"

namespace rtkit::net {

/// What kind of file a registered_fd holds; decides the syscalls used on it.
/// A datagram socket is never drained by one read (each takes one datagram,
/// however short), so a short read does not mean "wait for readiness".
enum class fd_kind : std::uint8_t { socket, pipe, datagram };

/// Owns a descriptor and its reactor registration. The registration is removed
/// before the descriptor is closed, so no readiness event or completion of this
/// descriptor can reach whoever gets the same number next.
///
/// Create and use it on the thread that holds the runtime's worker (inside a
/// task or a block_on root). It may be destroyed anywhere: on a thread that
/// may not use the reactor, the worker deregisters and closes it when it next
/// runs. When the reactor offers completion_reactor_v1 (io_uring),
/// completion() returns it and operations use it.
class registered_fd {
  public:
    registered_fd() noexcept = default;
    /// Takes ownership of `fd` (already non-blocking) and registers it for
    /// read and write. Closes `fd` and rethrows when registration fails.
    registered_fd(int fd, fd_kind kind, socket_address peer = {});
    registered_fd(registered_fd&& other) noexcept;
    registered_fd& operator=(registered_fd&& other) noexcept;
    ~registered_fd() { close(); }

    /// Deregisters, then closes (later, by the worker, on a thread that may not
    /// use the reactor). Idempotent. Operations of other tasks waiting on it
    /// end: a submitted one is cancelled, and each is woken to find the
    /// descriptor closed (std::system_error(EBADF)).
    void close() noexcept;

    int get() const noexcept { return fd_; }
    bool is_open() const noexcept { return fd_ >= 0; }
    fd_kind kind() const noexcept { return kind_; }
    /// The address of the other end (sockets), or the bound one (listeners).
    const socket_address& peer() const noexcept { return peer_; }
    /// Records a new other end (a datagram socket connected after its bind).
    void set_peer(const socket_address& peer) noexcept { peer_ = peer; }
    rtkit::detail::io_registration& registration() noexcept { return registration_; }
    /// The reactor's completion interface, or nullptr for readiness reactors.
    completion_reactor_v1* completion() const noexcept { return completion_; }
    /// "127.0.0.1:80", "pipe", "unix:/path": for error messages.
    std::string describe() const;

  private:
    int fd_ = -1;
    fd_kind kind_ = fd_kind::socket;
    socket_address peer_;
    rtkit::detail::io_registration registration_;
    completion_reactor_v1* completion_ = nullptr;
};

}  // namespace rtkit::net
