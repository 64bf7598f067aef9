#pragma once
// rtkit::net::resolve: host names to socket addresses, without blocking a worker.
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "rtkit/net/socket_address.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// The addresses of `host` ("localhost", "example.org", "127.0.0.1", "::1")
/// for `port`, IPv4 and IPv6, in the order getaddrinfo(3) prefers (which
/// /etc/gai.conf tunes), each once. A numeric address is converted at once;
/// a name is looked up on the runtime's blocking pool (rtkit/blocking.hpp),
/// so the worker goes on running tasks meanwhile. A cancellation point.
///
/// Throws std::invalid_argument for an empty host, std::system_error in
/// resolver_category() when the lookup fails ("resolve no-such.host:80:
/// Name or service not known"), no_runtime_error outside a task.
task<std::vector<socket_address>> resolve(std::string host, std::uint16_t port);

/// The same for "host:port", "[v6 address]:port" or "a.b.c.d:port". Throws
/// std::invalid_argument (before any lookup) for text of another shape, a
/// port that is not a number in 0..65535, or an IPv6 address without brackets.
task<std::vector<socket_address>> resolve(std::string host_and_port);

/// The category of getaddrinfo's EAI_* codes (message: gai_strerror). A
/// system error behind a lookup (EAI_SYSTEM) is reported with its errno in
/// std::generic_category() instead.
const std::error_category& resolver_category() noexcept;

}  // namespace rtkit::net
