#pragma once
// How rtkit::net reports a failed operation: std::system_error whose message
// names the operation and the address.
#include <string>
#include <system_error>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/net/registered_fd.hpp"

namespace rtkit::net::detail {

/// "connect to 127.0.0.1:80", "read from pipe (fd 7)", ...
std::string describe_operation(io_opcode op, const registered_fd& fd);

/// Throws std::system_error(error) with "<operation>: <reason><suffix>".
[[noreturn]] void throw_net_error(int error, io_opcode op, const registered_fd& fd,
                                  const std::string& suffix);

/// Throws std::system_error(errno) for a synchronous call: "<what> <where>".
[[noreturn]] void throw_errno(int error, const std::string& what);

}  // namespace rtkit::net::detail
