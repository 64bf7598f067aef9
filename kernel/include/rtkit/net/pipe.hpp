#pragma once
// rtkit::net pipes: the two ends of an anonymous pipe.
#include "rtkit/net/byte_stream.hpp"

namespace rtkit::net {

/// The read end of a pipe: read and read_exact (0 / ENODATA once every writer
/// closed).
class pipe_reader : private byte_stream {
  public:
    pipe_reader() noexcept = default;
    explicit pipe_reader(registered_fd fd) noexcept : byte_stream(std::move(fd)) {}
    using byte_stream::close;
    using byte_stream::is_open;
    using byte_stream::native_handle;
    using byte_stream::read;
    using byte_stream::read_exact;
};

/// The write end of a pipe: write and write_all (EPIPE once the reader closed;
/// SIGPIPE is ignored process-wide from the first open_pipe() on, as Go and
/// Rust programs do, unless the program installed its own handler).
class pipe_writer : private byte_stream {
  public:
    pipe_writer() noexcept = default;
    explicit pipe_writer(registered_fd fd) noexcept : byte_stream(std::move(fd)) {}
    using byte_stream::close;
    using byte_stream::is_open;
    using byte_stream::native_handle;
    using byte_stream::write;
    using byte_stream::write_all;
};

/// Both ends of a new pipe.
struct pipe_ends {
    pipe_reader reader;
    pipe_writer writer;
};

/// Creates a non-blocking pipe registered with this thread's worker.
/// Throws std::system_error (EMFILE, ...).
pipe_ends open_pipe();

}  // namespace rtkit::net
