#pragma once
// rtkit::net: async TCP, UDP, Unix-domain sockets and pipes on the runtime's
// reactor, and name resolution.
#include "rtkit/net/byte_stream.hpp"
#include "rtkit/net/pipe.hpp"
#include "rtkit/net/resolve.hpp"
#include "rtkit/net/socket_address.hpp"
#include "rtkit/net/tcp_listener.hpp"
#include "rtkit/net/tcp_stream.hpp"
#include "rtkit/net/udp_socket.hpp"
#include "rtkit/net/unix_listener.hpp"
#include "rtkit/net/unix_stream.hpp"
