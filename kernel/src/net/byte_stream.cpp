#include "rtkit/net/byte_stream.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <system_error>

#include "net_error.hpp"

namespace rtkit::net {

task<void> byte_stream::read_exact(void* data, std::size_t size) {
    auto* bytes = static_cast<std::byte*>(data);
    std::size_t got = 0;
    while (got < size) {
        const std::size_t n = co_await read(bytes + got, size - got);
        if (n == 0)
            throw std::system_error(ENODATA, std::generic_category(),
                                    "read_exact from " + fd_.describe() +
                                        ": the stream ended after " + std::to_string(got) + " of " +
                                        std::to_string(size) + " bytes");
        got += n;
    }
}

task<void> byte_stream::write_all(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const std::byte*>(data);
    std::size_t sent = 0;
    while (sent < size)
        sent += co_await write(bytes + sent, size - sent);
}

}  // namespace rtkit::net
