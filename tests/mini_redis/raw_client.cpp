#include "raw_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace mini_redis_test {
namespace {

enum class read_result { data, closed, timed_out };

/// One read of at most `size` bytes into `out`, waiting until `deadline`.
read_result read_some(int fd, std::string& out, std::size_t size,
                      std::chrono::steady_clock::time_point deadline) {
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return read_result::timed_out;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return read_result::timed_out;
        char chunk[65536];
        const ssize_t n = ::recv(fd, chunk, std::min(size, sizeof chunk), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return read_result::closed;  // end of stream, or reset
        out.append(chunk, static_cast<std::size_t>(n));
        return read_result::data;
    }
}

}  // namespace

raw_client::raw_client(std::uint16_t port, int receive_buffer) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
    if (receive_buffer > 0)
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    const int on = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
        const int error = errno;
        ::close(fd_);
        throw std::system_error(error, std::generic_category(), "connect");
    }
}

raw_client::~raw_client() {
    ::close(fd_);
}

bool raw_client::send(std::string_view bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

std::string raw_client::read(std::size_t n, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string out;
    while (out.size() < n && read_some(fd_, out, n - out.size(), deadline) == read_result::data) {
    }
    return out;
}

std::string raw_client::read_until_closed(bool& closed, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string out;
    read_result r = read_result::data;
    while ((r = read_some(fd_, out, 65536, deadline)) == read_result::data) {
    }
    closed = r == read_result::closed;
    return out;
}

}  // namespace mini_redis_test
