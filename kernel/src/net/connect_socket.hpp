#pragma once
// Connecting a stream socket, shared by TCP and Unix-domain streams.
#include <optional>

#include "rtkit/net/registered_fd.hpp"
#include "rtkit/task.hpp"
#include "rtkit/time.hpp"

namespace rtkit::net::detail {

/// A new non-blocking stream socket of `peer`'s family, connected to `peer`
/// (with a completion reactor: one CONNECT operation; otherwise connect(),
/// then the reactor's writability and SO_ERROR). ETIMEDOUT after `timeout`.
task<registered_fd> connect_socket(socket_address peer, std::optional<duration> timeout);

/// A new non-blocking, close-on-exec stream socket of `family`.
int open_stream_socket(int family, const socket_address& for_address);

}  // namespace rtkit::net::detail
