#pragma once
// mini_redis::outbox: everything a connection sends, on its way to the socket.
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

#include "rtkit/net/byte_stream.hpp"
#include "rtkit/sync/channel.hpp"
#include "rtkit/task.hpp"

namespace mini_redis {

/// The bytes a connection owes its client: the replies of its own commands
/// and, while it is subscribed, the messages publishers on any thread send it.
/// They queue in an rtkit::sync channel, which the connection's writer task
/// (write_to) drains into the socket, many chunks per write when they pile up.
///
/// The queue is bounded, so that a client that sends but never reads cannot
/// make the server hold its replies without end: once the bytes queued and
/// not yet written pass the limit (or 4096 chunks are waiting), push() fails
/// and the connection drops the client, as redis does at its
/// client-output-buffer-limit. A single reply is never refused for its size.
class outbox {
  public:
    explicit outbox(std::size_t byte_limit);

    /// Queues `bytes` (one or more whole replies); any thread. False, with
    /// nothing queued, when the limit is reached, the writer has stopped, or
    /// after close(): the client must be dropped.
    bool push(std::string bytes);

    /// The writer task: writes what is queued to `stream` until close() and
    /// the queue is empty, or until a write fails (the client is gone; push()
    /// fails from then on). One writer at a time.
    rtkit::task<void> write_to(rtkit::net::byte_stream& stream);

    /// No more pushes: the writer ends once it has written what is queued.
    /// Nobody may push at the same time (publishers reach an outbox only
    /// through a subscription, so unsubscribe first).
    void close() noexcept;

  private:
    static constexpr std::size_t max_chunks = 4096;
    /// A write gathers queued chunks up to this many bytes.
    static constexpr std::size_t max_write = 256 * 1024;

    explicit outbox(rtkit::sync::channel<std::string> queue, std::size_t byte_limit);

    std::optional<rtkit::sync::channel_sender<std::string>> sender_;
    rtkit::sync::channel_receiver<std::string> receiver_;
    std::atomic<std::size_t> queued_bytes_{0};
    std::atomic<bool> writer_stopped_{false};
    const std::size_t byte_limit_;
};

}  // namespace mini_redis
