#pragma once
// W7 (tcp_echo) of shared/bench/WORKLOADS.md: rtkit's echo server.
#include <cstdint>

#include "rtkit/runtime.hpp"

namespace rtbench {

/// Serves TCP echo on 127.0.0.1:`port` on `rt` until SIGTERM or SIGINT, one
/// task per connection (read, then write back what came), TCP_NODELAY set.
/// Returns the process exit status: 0 after a signal, 1 when it cannot listen
/// (the reason on stderr). Driven by shared/peers/echo_client.c.
int run_echo_server(rtkit::runtime& rt, std::uint16_t port);

}  // namespace rtbench
