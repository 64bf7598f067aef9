#include "rtkit/net/byte_stream.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <system_error>

#include "net_error.hpp"

namespace rtkit::net {

detail::io_operation byte_stream::read(void* data, std::size_t size) noexcept {
    io_request r;
    r.op = fd_.kind() == fd_kind::socket ? io_opcode::recv : io_opcode::read;
    r.fd = fd_.get();
    r.buffer = data;
    r.length = size;
    return detail::io_operation(fd_, r);
}

detail::io_operation byte_stream::write(const void* data, std::size_t size) noexcept {
    io_request r;
    r.op = fd_.kind() == fd_kind::socket ? io_opcode::send : io_opcode::write;
    r.fd = fd_.get();
    r.buffer = const_cast<void*>(data);  // only read by send/write
    r.length = size;
    r.flags = fd_.kind() == fd_kind::socket ? MSG_NOSIGNAL : 0;  // EPIPE, not SIGPIPE
    return detail::io_operation(fd_, r);
}

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
