#pragma once
// Serving one client: its connection's two tasks.
#include "rtkit/net/tcp_stream.hpp"
#include "rtkit/task.hpp"
#include "server_state.hpp"

namespace mini_redis {

/// Serves the client on `stream` (admitted to server.clients already; it
/// leaves the list when this ends) until it quits, closes, or must be dropped.
///
/// Two tasks: this one reads requests and runs them, a read's worth at a
/// time, and hands their replies to the connection's outbox in one push; a
/// writer task drains the outbox into the socket. So the reading goes on
/// while replies wait for a client that is slow to read, until the outbox
/// limit drops it. A malformed request gets its error, then the connection
/// closes; so does QUIT, after its +OK. A client that closes its side (or a
/// server that stops reading) gets the replies it is owed, within the
/// shutdown timeout.
rtkit::task<void> serve_connection(server_state& server, rtkit::net::tcp_stream stream);

}  // namespace mini_redis
