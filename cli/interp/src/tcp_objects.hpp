#pragma once
// rtkit::interp::tcp_listener_object and tcp_stream_object: a script's TCP
// sockets, on rtkit::net, on loopback only.
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include <rtkit/net/tcp_listener.hpp>
#include <rtkit/net/tcp_stream.hpp>
#include <rtkit/sync/mutex.hpp>
#include <rtkit/task.hpp>
#include <rtkit/time.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// The address `text` ("127.0.0.1:PORT" or "[::1]:PORT"); a runtime error at
/// `where` for a bad address or one that is not loopback, naming `operation`.
rtkit::net::socket_address loopback_address(const std::string& text, std::string_view operation,
                                            script::source_pos where);

/// A connected TCP stream. One task reads and one writes at a time (others
/// wait their turn); `close` ends both directions first, so a task waiting in
/// read sees the end of the stream and one waiting in write an error.
class tcp_stream_object final : public script::object {
  public:
    /// Reads return at most this many bytes.
    static constexpr std::size_t max_read = 16 * 1024;

    explicit tcp_stream_object(rtkit::net::tcp_stream stream);

    /// rtkit::net::tcp_stream::connect to a loopback address, or to
    /// "localhost:PORT" (resolved), giving up after `timeout` if one is given.
    static rtkit::task<std::shared_ptr<tcp_stream_object>> connect(
        std::string address, std::optional<rtkit::duration> timeout, script::source_pos where);

    /// The bytes that came (at least one), or "" at the end of the stream.
    rtkit::task<script::value> read(script::source_pos where);
    /// Writes all of `data`.
    rtkit::task<void> write(std::string data, script::source_pos where);
    rtkit::task<void> close(script::source_pos where);

    std::string_view type_name() const noexcept override { return "a stream"; }
    std::string display() const override { return "stream(" + peer_ + ")"; }
    std::vector<std::string_view> field_names() const override { return {"peer", "address"}; }
    script::value field(std::string_view name, script::source_pos where) const override;

  private:
    void check_open(std::string_view operation, script::source_pos where) const;

    rtkit::net::tcp_stream stream_;
    std::string peer_, local_;
    std::atomic<bool> closed_{false};
    rtkit::sync::mutex<> reading_, writing_;
};

/// A listening TCP socket on loopback. One task accepts at a time; `close`
/// ends a waiting accept with no stream (null), as closing a stream ends a
/// waiting read with no bytes; an accept that starts after it is an error.
class tcp_listener_object final : public script::object {
  public:
    /// Binds and listens (port 0 picks a free port: see .port).
    static std::shared_ptr<tcp_listener_object> listen(const std::string& address,
                                                       script::source_pos where);
    explicit tcp_listener_object(rtkit::net::tcp_listener listener);

    rtkit::task<std::shared_ptr<tcp_stream_object>> accept(script::source_pos where);
    rtkit::task<void> close(script::source_pos where);

    std::string_view type_name() const noexcept override { return "a listener"; }
    std::string display() const override { return "listener(" + address_ + ")"; }
    std::vector<std::string_view> field_names() const override { return {"address", "port"}; }
    script::value field(std::string_view name, script::source_pos where) const override;

  private:
    rtkit::net::tcp_listener listener_;
    std::string address_;
    std::int64_t port_;
    std::atomic<bool> closed_{false};
    rtkit::sync::mutex<> accepting_;
};

}  // namespace rtkit::interp
