#include "rtkit/net/socket_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace rtkit::net {

socket_address socket_address::ipv4(std::string_view host, std::uint16_t port) {
    socket_address a;
    auto* in = reinterpret_cast<sockaddr_in*>(&a.storage_);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    const std::string text(host);
    if (inet_pton(AF_INET, text.c_str(), &in->sin_addr) != 1)
        throw std::invalid_argument("'" + text + "' is not an IPv4 address (a.b.c.d)");
    a.size_ = sizeof(sockaddr_in);
    return a;
}

socket_address socket_address::ipv6(std::string_view host, std::uint16_t port) {
    socket_address a;
    auto* in = reinterpret_cast<sockaddr_in6*>(&a.storage_);
    in->sin6_family = AF_INET6;
    in->sin6_port = htons(port);
    const std::string text(host);
    if (inet_pton(AF_INET6, text.c_str(), &in->sin6_addr) != 1)
        throw std::invalid_argument("'" + text + "' is not an IPv6 address");
    a.size_ = sizeof(sockaddr_in6);
    return a;
}

socket_address socket_address::loopback(std::uint16_t port) {
    return ipv4("127.0.0.1", port);
}

socket_address socket_address::unix_path(std::string_view path) {
    socket_address a;
    auto* un = reinterpret_cast<sockaddr_un*>(&a.storage_);
    if (path.empty() || path.size() >= sizeof un->sun_path)
        throw std::invalid_argument("Unix socket path '" + std::string(path) + "' must have 1 to " +
                                    std::to_string(sizeof un->sun_path - 1) + " bytes");
    un->sun_family = AF_UNIX;
    std::memcpy(un->sun_path, path.data(), path.size());
    a.size_ = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    return a;
}

socket_address socket_address::parse(std::string_view text) {
    if (text.starts_with("unix:")) return unix_path(text.substr(5));
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
        throw std::invalid_argument("'" + std::string(text) +
                                    "' is not an address: write host:port or unix:/path");
    const std::string_view port_text = text.substr(colon + 1);
    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
        throw std::invalid_argument("'" + std::string(port_text) + "' is not a port (0..65535)");
    std::string_view host = text.substr(0, colon);
    if (host.starts_with('[') && host.ends_with(']'))
        return ipv6(host.substr(1, host.size() - 2), static_cast<std::uint16_t>(port));
    return ipv4(host, static_cast<std::uint16_t>(port));
}

socket_address socket_address::from(const sockaddr* address, socklen_t size) {
    socket_address a;
    if (size > capacity()) size = capacity();
    std::memcpy(&a.storage_, address, size);
    a.size_ = size;
    return a;
}

std::uint16_t socket_address::port() const noexcept {
    if (family() == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
    if (family() == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
    return 0;
}

std::string socket_address::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    switch (family()) {
        case AF_INET:
            inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, text,
                      sizeof text);
            return std::string(text) + ":" + std::to_string(port());
        case AF_INET6:
            inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, text,
                      sizeof text);
            return "[" + std::string(text) + "]:" + std::to_string(port());
        case AF_UNIX: {
            const auto* un = reinterpret_cast<const sockaddr_un*>(&storage_);
            if (size_ <= offsetof(sockaddr_un, sun_path)) return "unix:(unnamed)";
            return "unix:" + std::string(un->sun_path);
        }
        default:
            return "(none)";
    }
}

}  // namespace rtkit::net
