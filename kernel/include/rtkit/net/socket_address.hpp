#pragma once
// rtkit::net::socket_address: an IPv4, IPv6 or Unix-domain socket address.
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace rtkit::net {

/// A socket address of any family, held by value (sockaddr_storage).
///
/// Build one with ipv4/ipv6/loopback/unix_path, or parse "host:port"
/// ("127.0.0.1:80", "[::1]:80") and "unix:/path". to_string() is what error
/// messages show. Bad input throws std::invalid_argument.
class socket_address {
  public:
    socket_address() noexcept = default;

    static socket_address ipv4(std::string_view host, std::uint16_t port);
    static socket_address ipv6(std::string_view host, std::uint16_t port);
    /// 127.0.0.1:port
    static socket_address loopback(std::uint16_t port);
    /// A filesystem path (at most 107 bytes) for AF_UNIX.
    static socket_address unix_path(std::string_view path);
    /// "a.b.c.d:port", "[v6]:port" or "unix:/path".
    static socket_address parse(std::string_view text);
    /// Copies `size` bytes of a kernel-filled address.
    static socket_address from(const sockaddr* address, socklen_t size);

    int family() const noexcept { return storage_.ss_family; }
    /// The port of an IP address (host order); 0 for Unix-domain addresses.
    std::uint16_t port() const noexcept;
    /// "127.0.0.1:80", "[::1]:80", "unix:/path", or "(none)".
    std::string to_string() const;

    const sockaddr* data() const noexcept { return reinterpret_cast<const sockaddr*>(&storage_); }
    sockaddr* data() noexcept { return reinterpret_cast<sockaddr*>(&storage_); }
    socklen_t size() const noexcept { return size_; }
    /// For the kernel to fill: the storage's full size, and the size it reported.
    static constexpr socklen_t capacity() noexcept { return sizeof(sockaddr_storage); }
    void set_size(socklen_t size) noexcept { size_ = size; }

  private:
    sockaddr_storage storage_{};
    socklen_t size_ = 0;
};

}  // namespace rtkit::net
