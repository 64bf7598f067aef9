#pragma once
// rtkit::net::byte_stream: reading and writing a connected stream descriptor.
#include <sys/socket.h>

#include <cstddef>
#include <string_view>

#include "rtkit/net/io_operation.hpp"
#include "rtkit/net/registered_fd.hpp"
#include "rtkit/task.hpp"

namespace rtkit::net {

/// How shutdown() ends a stream.
enum class shutdown_how { read = 0, write = 1, both = 2 };

/// The operations every byte stream has (TCP, Unix-domain, pipe ends):
/// read some, read exactly, write all. Each is a cancellation point and throws
/// std::system_error naming the operation and the peer. Any number of tasks
/// may wait on one stream at once, reading or writing (each read takes bytes
/// that came, in no promised order between the readers); keep the stream
/// alive until their awaits end.
///
/// Closing a stream while other tasks wait on it ends their waits: each
/// operation throws std::system_error(EBADF) saying the stream was closed
/// while it waited (one that completed first returns its result), the same
/// error as an operation started after the close. The same rule holds for a
/// listener's accept().
class byte_stream {
  public:
    byte_stream() noexcept = default;
    explicit byte_stream(registered_fd fd) noexcept : fd_(std::move(fd)) {}

    /// Reads at least one byte (up to `size`) into `data`; 0 at end of stream.
    detail::io_operation read(void* data, std::size_t size) noexcept {
        io_request r;
        r.op = fd_.kind() == fd_kind::socket ? io_opcode::recv : io_opcode::read;
        r.fd = fd_.get();
        r.buffer = data;
        r.length = size;
        return detail::io_operation(fd_, r);
    }
    /// Reads exactly `size` bytes; throws std::system_error (ENODATA) when the
    /// stream ends first, saying how many bytes came.
    task<void> read_exact(void* data, std::size_t size);
    /// Writes at least one byte of `data`; returns how many.
    detail::io_operation write(const void* data, std::size_t size) noexcept {
        io_request r;
        r.op = fd_.kind() == fd_kind::socket ? io_opcode::send : io_opcode::write;
        r.fd = fd_.get();
        r.buffer = const_cast<void*>(data);  // only read by send/write
        r.length = size;
        r.flags = fd_.kind() == fd_kind::socket ? MSG_NOSIGNAL : 0;  // EPIPE, not SIGPIPE
        return detail::io_operation(fd_, r);
    }
    /// Writes all of `data`.
    task<void> write_all(const void* data, std::size_t size);
    task<void> write_all(std::string_view text) { return write_all(text.data(), text.size()); }

    /// Closes now (deregisters first), ending the waits of other tasks on it
    /// with EBADF. The destructor does it too.
    void close() noexcept { fd_.close(); }
    bool is_open() const noexcept { return fd_.is_open(); }
    int native_handle() const noexcept { return fd_.get(); }

  protected:
    registered_fd fd_;
};

}  // namespace rtkit::net
