// tcp_stream::connect by host name: resolve, then try each address.
#include <cerrno>
#include <system_error>

#include "connect_socket.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/net/resolve.hpp"
#include "rtkit/net/tcp_stream.hpp"

namespace rtkit::net {
namespace {

[[noreturn]] void timed_out(const std::string& what) {
    throw std::system_error(ETIMEDOUT, std::generic_category(), what + " (timed out)");
}

}  // namespace

task<tcp_stream> tcp_stream::connect(std::string host_and_port, std::optional<duration> timeout) {
    const std::string what = "connect to " + host_and_port;
    std::optional<instant> deadline;
    if (timeout) deadline = saturating_add(rtkit::now(), *timeout);
    std::vector<socket_address> addresses;
    if (deadline) {
        auto found = co_await rtkit::timeout(*timeout, resolve(host_and_port));
        if (!found) timed_out(what + ": resolving the name");
        addresses = std::move(*found);
    } else {
        addresses = co_await resolve(host_and_port);
    }
    std::string tried;
    std::error_code last;
    for (const socket_address& address : addresses) {
        std::optional<duration> left;
        if (deadline) {
            left = *deadline - rtkit::now();
            if (*left <= duration::zero()) timed_out(what);
        }
        try {
            co_return tcp_stream(co_await detail::connect_socket(address, left));
        } catch (const std::system_error& e) {
            if (e.code() == std::errc::timed_out) throw;  // the deadline is spent
            last = e.code();
            tried += (tried.empty() ? "" : ", ") + address.to_string();
        }
    }
    throw std::system_error(last, what + " (tried " + tried + ")");
}

}  // namespace rtkit::net
