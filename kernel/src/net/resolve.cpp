#include "rtkit/net/resolve.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <memory>
#include <optional>
#include <stdexcept>

#include "rtkit/blocking.hpp"

namespace rtkit::net {
namespace {

class resolver_error_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "getaddrinfo"; }
    std::string message(int code) const override { return ::gai_strerror(code); }
};

/// `host` as a numeric IPv4 or IPv6 address (no lookup needed), or nothing.
std::optional<socket_address> numeric_address(const std::string& host, std::uint16_t port) {
    in6_addr scratch{};
    if (inet_pton(AF_INET, host.c_str(), &scratch) == 1) return socket_address::ipv4(host, port);
    if (inet_pton(AF_INET6, host.c_str(), &scratch) == 1) return socket_address::ipv6(host, port);
    return std::nullopt;
}

/// getaddrinfo(3), on a thread that may block.
std::vector<socket_address> look_up(const std::string& host, std::uint16_t port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;  // one entry per address, not one per socket type
    hints.ai_flags = AI_NUMERICSERV;
    const std::string service = std::to_string(port);
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    const std::string what = "resolve " + host + ":" + service;
    if (rc == EAI_SYSTEM) throw std::system_error(errno, std::generic_category(), what);
    if (rc != 0) throw std::system_error(rc, resolver_category(), what);
    std::unique_ptr<addrinfo, void (*)(addrinfo*)> owned(found, ::freeaddrinfo);
    std::vector<socket_address> addresses;
    for (const addrinfo* a = found; a; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        const socket_address address = socket_address::from(a->ai_addr, a->ai_addrlen);
        const bool seen = std::any_of(addresses.begin(), addresses.end(), [&](const auto& b) {
            return b.to_string() == address.to_string();
        });
        if (!seen) addresses.push_back(address);
    }
    if (addresses.empty())
        throw std::system_error(EAI_NONAME, resolver_category(), what + " (no IP address)");
    return addresses;
}

/// One lookup, as the blocking pool runs it.
struct lookup_call {
    std::string host;
    std::uint16_t port;
    std::vector<socket_address> operator()() const { return look_up(host, port); }
};

}  // namespace

const std::error_category& resolver_category() noexcept {
    static const resolver_error_category category;
    return category;
}

task<std::vector<socket_address>> resolve(std::string host, std::uint16_t port) {
    if (host.empty()) throw std::invalid_argument("resolve: the host name is empty");
    if (std::optional<socket_address> numeric = numeric_address(host, port))
        co_return std::vector<socket_address>{*numeric};
    lookup_call call{std::move(host), port};  // named: see run_blocking on GCC 12
    co_return co_await run_blocking(std::move(call));
}

task<std::vector<socket_address>> resolve(std::string host_and_port) {
    const std::string text = std::move(host_and_port);
    const auto colon = text.rfind(':');
    if (colon == std::string::npos)
        throw std::invalid_argument("'" + text + "' is not host:port (a port is needed)");
    const std::string_view port_text = std::string_view(text).substr(colon + 1);
    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
        port > 65535)
        throw std::invalid_argument("'" + text + "': '" + std::string(port_text) +
                                    "' is not a port (0..65535)");
    std::string host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string::npos) {
        throw std::invalid_argument("'" + text +
                                    "': write an IPv6 address in brackets, as [::1]:80");
    }
    co_return co_await resolve(std::move(host), static_cast<std::uint16_t>(port));
}

}  // namespace rtkit::net
