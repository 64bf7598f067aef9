#include "tcp_objects.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <stdexcept>
#include <system_error>

#include "operands.hpp"

namespace rtkit::interp {
namespace {

bool is_loopback(const rtkit::net::socket_address& address) {
    if (address.family() == AF_INET)
        return reinterpret_cast<const sockaddr_in*>(address.data())->sin_addr.s_addr ==
               htonl(INADDR_LOOPBACK);
    if (address.family() == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(
            &reinterpret_cast<const sockaddr_in6*>(address.data())->sin6_addr);
    return false;
}

/// A socket error as a script error at `where`: "read: Connection reset ..."
[[noreturn]] void io_failed(const std::system_error& e, script::source_pos where) {
    fail(where, e.what());
}

}  // namespace

rtkit::net::socket_address loopback_address(const std::string& text, std::string_view operation,
                                            script::source_pos where) {
    rtkit::net::socket_address address;
    try {
        address = rtkit::net::socket_address::parse(text);
    } catch (const std::invalid_argument& e) {
        fail(where, std::string(operation) + ": bad address '" + text + "': " + e.what() +
                        " (write 127.0.0.1:PORT or [::1]:PORT)");
    }
    if (!is_loopback(address))
        fail(where, std::string(operation) + ": '" + text +
                        "' is not a loopback address: scripts may only use 127.0.0.1 and [::1]");
    return address;
}

// ---- tcp_stream_object ----

tcp_stream_object::tcp_stream_object(rtkit::net::tcp_stream stream)
    : stream_(std::move(stream)),
      peer_(stream_.peer_address().to_string()),
      local_(stream_.local_address().to_string()) {}

rtkit::task<std::shared_ptr<tcp_stream_object>> tcp_stream_object::connect(
    std::string address, std::optional<rtkit::duration> timeout, script::source_pos where) {
    // "localhost:PORT" is the one host name: resolved on the blocking pool,
    // and refused below should it name another machine.
    const bool by_name = address.rfind("localhost:", 0) == 0;
    rtkit::net::socket_address peer;
    if (!by_name) peer = loopback_address(address, "connect", where);
    rtkit::net::tcp_stream stream;
    try {
        if (by_name)
            stream = co_await rtkit::net::tcp_stream::connect(address, timeout);
        else
            stream = co_await rtkit::net::tcp_stream::connect(peer, timeout);
    } catch (const std::system_error& e) {
        io_failed(e, where);
    } catch (const std::invalid_argument& e) {
        fail(where, "connect: bad address '" + address + "': " + e.what() +
                        " (write localhost:PORT, 127.0.0.1:PORT or [::1]:PORT)");
    }
    if (!is_loopback(stream.peer_address()))
        fail(where, "connect: '" + address + "' reached " + stream.peer_address().to_string() +
                        ", which is not a loopback address: scripts may only use loopback");
    co_return std::make_shared<tcp_stream_object>(std::move(stream));
}

void tcp_stream_object::check_open(std::string_view operation, script::source_pos where) const {
    if (closed_.load(std::memory_order_acquire))
        fail(where, std::string(operation) + " on a closed stream (" + peer_ + ")");
}

rtkit::task<script::value> tcp_stream_object::read(script::source_pos where) {
    check_open("read", where);
    auto turn = co_await reading_.lock();
    check_open("read", where);
    std::string data(max_read, '\0');
    std::size_t got = 0;
    try {
        got = co_await stream_.read(data.data(), data.size());
    } catch (const std::system_error& e) {
        io_failed(e, where);
    }
    data.resize(got);
    co_return data;
}

rtkit::task<void> tcp_stream_object::write(std::string data, script::source_pos where) {
    check_open("write", where);
    auto turn = co_await writing_.lock();
    check_open("write", where);
    try {
        co_await stream_.write_all(data);
    } catch (const std::system_error& e) {
        io_failed(e, where);
    }
}

rtkit::task<void> tcp_stream_object::close(script::source_pos where) {
    if (closed_.exchange(true, std::memory_order_acq_rel))
        fail(where, "the stream (" + peer_ + ") is already closed");
    // Ends the waits of a reader and a writer in other tasks, which then
    // give their turns back; the descriptor goes only after that.
    try {
        stream_.shutdown(rtkit::net::shutdown_how::both);
    } catch (const std::system_error&) {
        // Already disconnected by the peer: nothing is waiting to be ended.
    }
    auto read_turn = co_await reading_.lock();
    auto write_turn = co_await writing_.lock();
    stream_.close();
}

script::value tcp_stream_object::field(std::string_view name, script::source_pos where) const {
    if (name == "peer") return peer_;
    if (name == "address") return local_;
    return object::field(name, where);
}

// ---- tcp_listener_object ----

std::shared_ptr<tcp_listener_object> tcp_listener_object::listen(const std::string& address,
                                                                 script::source_pos where) {
    const rtkit::net::socket_address local = loopback_address(address, "listen", where);
    try {
        return std::make_shared<tcp_listener_object>(rtkit::net::tcp_listener::bind(local));
    } catch (const std::system_error& e) {
        io_failed(e, where);
    }
}

tcp_listener_object::tcp_listener_object(rtkit::net::tcp_listener listener)
    : listener_(std::move(listener)) {
    const rtkit::net::socket_address local = listener_.local_address();
    address_ = local.to_string();
    port_ = local.port();
}

rtkit::task<std::shared_ptr<tcp_stream_object>> tcp_listener_object::accept(
    script::source_pos where) {
    auto turn = co_await accepting_.lock();
    if (closed_.load(std::memory_order_acquire))
        fail(where, "accept on a closed listener (" + address_ + ")");
    rtkit::net::tcp_stream stream;
    try {
        stream = co_await listener_.accept();
    } catch (const std::system_error& e) {
        // Closed while this accept waited: the end of the listener, as a
        // read waiting on a stream closed meanwhile gives the end of it.
        if (closed_.load(std::memory_order_acquire)) co_return nullptr;
        io_failed(e, where);
    }
    co_return std::make_shared<tcp_stream_object>(std::move(stream));
}

rtkit::task<void> tcp_listener_object::close(script::source_pos where) {
    if (closed_.exchange(true, std::memory_order_acq_rel))
        fail(where, "the listener (" + address_ + ") is already closed");
    // Linux ends an accept waiting on a listening socket that is shut down
    // (EINVAL); the descriptor goes once that accept gave its turn back.
    ::shutdown(listener_.native_handle(), SHUT_RDWR);
    auto turn = co_await accepting_.lock();
    listener_.close();
}

script::value tcp_listener_object::field(std::string_view name, script::source_pos where) const {
    if (name == "address") return address_;
    if (name == "port") return port_;
    return object::field(name, where);
}

}  // namespace rtkit::interp
