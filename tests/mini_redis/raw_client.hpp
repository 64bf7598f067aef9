#pragma once
// A TCP client that sends exactly the bytes a test gives it, for what
// redis-cli will not send: requests split anywhere, garbage, a client that
// never reads.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mini_redis_test {

using namespace std::chrono_literals;

class raw_client {
  public:
    /// Connects to 127.0.0.1:`port` (TCP_NODELAY: each send() leaves at once).
    /// A nonzero `receive_buffer` shrinks the socket's receive buffer first, so
    /// that a client that does not read stops taking replies early.
    explicit raw_client(std::uint16_t port, int receive_buffer = 0);
    ~raw_client();
    raw_client(const raw_client&) = delete;
    raw_client& operator=(const raw_client&) = delete;

    /// Sends all of `bytes`; false when the server closed or reset the connection.
    bool send(std::string_view bytes);
    /// Reads until `n` bytes came, the server closed, or `limit` passed.
    std::string read(std::size_t n, std::chrono::milliseconds limit = 10s);
    /// Reads until the server closes the connection (end of stream or reset);
    /// `closed` says whether it did within `limit`.
    std::string read_until_closed(bool& closed, std::chrono::milliseconds limit = 10s);

  private:
    int fd_ = -1;
};

}  // namespace mini_redis_test
