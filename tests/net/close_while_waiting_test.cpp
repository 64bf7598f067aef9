// One rule for a socket closed while other tasks wait on it (a listener
// with a task in accept, a stream with a task in read or write): each of
// those waits ends at once with std::system_error(EBADF) saying that the
// socket was closed, on every reactor.
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "waiting_tasks.hpp"

using namespace rtkit;

namespace {

using net_test::outcome_patiently;
using net_test::start_waiting;

/// Checks that `o` ended with the closed-socket error of `operation`.
template <class T>
void check_ended_by_close(const outcome<T>& o, const std::string& operation) {
    REQUIRE(o.is_panicked());
    try {
        std::rethrow_exception(o.exception());
    } catch (const std::system_error& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(e.code().value() == EBADF);
        CHECK(what.find(operation) == 0);
        CHECK(what.find("(the socket was closed while it waited)") != std::string::npos);
    }
}

task<void> close_listener_with_accept_waiting() {
    auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
    auto acceptors = co_await start_waiting<std::uint16_t>(
        2, [&](int, sync::oneshot_sender<bool> tx) -> task<std::uint16_t> {
            tx.send(true);
            co_return (co_await listener.accept()).peer_address().port();
        });
    listener.close();
    for (auto& a : acceptors)
        check_ended_by_close(co_await outcome_patiently(std::move(a), "an acceptor"), "accept");
}

task<void> close_stream_with_read_and_write_waiting() {
    auto [a, b] = net::unix_stream::pair();
    const std::string block(4096, 'f');
    while (::write(a.native_handle(), block.data(), block.size()) > 0) {
    }
    auto reader = co_await start_waiting<std::size_t>(
        1, [&](int, sync::oneshot_sender<bool> tx) -> task<std::size_t> {
            tx.send(true);
            char byte = 0;
            co_return co_await a.read(&byte, 1);
        });
    auto writer = co_await start_waiting<std::size_t>(
        1, [&](int, sync::oneshot_sender<bool> tx) -> task<std::size_t> {
            tx.send(true);
            co_return co_await a.write(block.data(), block.size());
        });
    a.close();
    check_ended_by_close(co_await outcome_patiently(std::move(reader[0]), "a reader"), "read");
    check_ended_by_close(co_await outcome_patiently(std::move(writer[0]), "a writer"), "write");
}

}  // namespace

TEST_CASE("close: closing a listener ends every waiting accept with EBADF") {
    net_test::on_every_setup("closing a listener", &close_listener_with_accept_waiting);
}

TEST_CASE("close: closing a stream ends a waiting read and a waiting write with EBADF") {
    net_test::on_every_setup("closing a stream", &close_stream_with_read_and_write_waiting);
}
