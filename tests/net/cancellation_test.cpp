// Cancelling in-flight operations: nothing is left behind that could consume
// data, swallow a connection, keep a socket open, or wake a reused descriptor.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Owns its stream: a cancel unwinds it, closing the socket. (A parameter
/// would live as long as the frame, which the join handle keeps.)
task<void> read_owned(net::unix_stream s) {
    net::unix_stream mine = std::move(s);
    char buf[64];
    co_await mine.read(buf, sizeof buf);
}

}  // namespace

TEST_CASE("cancel: a cancelled read consumes nothing - the next read gets the bytes") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            std::vector<char> first(64, '\0'), second(64, '\0');
            auto reader = spawn(net_test::read_into(a, first));
            co_await sleep(20ms);  // the read is in flight (submitted or armed)
            reader.cancel();
            const outcome<std::size_t> cancelled = co_await std::move(reader);
            CHECK(cancelled.is_cancelled());
            co_await b.write_all("after");
            const std::size_t n = co_await net_test::read_into(a, second);
            CHECK(net_test::text_of(second, n) == "after");
            CHECK(first[0] == '\0');  // the cancelled read never wrote its buffer
        }());
    }
}

TEST_CASE("cancel: unwinding a reader closes its socket for real - the number is reused cleanly") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            const int old_number = a.native_handle();
            auto reader = spawn(read_owned(std::move(a)));
            co_await sleep(20ms);
            reader.cancel();
            const outcome<void> o = co_await std::move(reader);
            CHECK(o.is_cancelled());
            // No operation holds the old socket: the peer sees end of stream now.
            char byte = 0;
            const std::size_t at_end = co_await b.read(&byte, 1);
            CHECK(at_end == 0);
            // A new socket gets the old number; old readiness or completions
            // must not reach it, and it works normally.
            auto [c, d] = net::unix_stream::pair();
            CHECK(c.native_handle() == old_number);
            std::vector<char> got(64, '\0');
            auto fresh = spawn(net_test::read_into(c, got));
            co_await sleep(20ms);
            CHECK_FALSE(fresh.is_finished());  // no stale wake made it return early
            co_await d.write_all("fresh");
            outcome<std::size_t> n = co_await std::move(fresh);
            REQUIRE(n.is_ok());
            CHECK(net_test::text_of(got, n.value()) == "fresh");
        }());
    }
}

TEST_CASE("cancel: a cancelled accept does not swallow the next connection") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            auto first = spawn(listener.accept());
            co_await sleep(20ms);
            first.cancel();
            const outcome<net::tcp_stream> o = co_await std::move(first);
            CHECK(o.is_cancelled());
            auto second = spawn(listener.accept());
            net::tcp_stream client =
                co_await net::tcp_stream::connect(listener.local_address(), 2s);
            outcome<net::tcp_stream> accepted = co_await std::move(second);
            REQUIRE(accepted.is_ok());
            co_await client.write_all("hi");
            std::vector<char> got(2);
            co_await accepted.value().read_exact(got.data(), 2);
            CHECK(net_test::text_of(got, 2) == "hi");
        }());
    }
}

TEST_CASE("cancel: a hanging connect ends promptly when cancelled") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0), 0);
            const auto target = listener.local_address();
            std::vector<int> fillers;
            for (int i = 0; i < 4; ++i) {
                const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
                ::connect(fd, target.data(), target.size());
                fillers.push_back(fd);
            }
            co_await sleep(50ms);
            auto connecting = spawn(net::tcp_stream::connect(target));  // no timeout
            co_await sleep(50ms);
            CHECK_FALSE(connecting.is_finished());
            const auto start = std::chrono::steady_clock::now();
            connecting.cancel();
            const outcome<net::tcp_stream> o = co_await std::move(connecting);
            CHECK(o.is_cancelled());
            CHECK(std::chrono::steady_clock::now() - start < 1s);
            for (int fd : fillers)
                ::close(fd);
        }());
    }
}

TEST_CASE("cancel: runtime shutdown unwinds tasks blocked in reads") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        int peer = -1;
        {
            runtime rt(net_test::config_for(setup));
            peer = rt.block_on([]() -> task<int> {
                auto [a, b] = net::unix_stream::pair();
                auto detached = spawn(read_owned(std::move(a)));
                co_await sleep(10ms);
                co_return ::dup(b.native_handle());
            }());
        }  // shutdown: the reader unwinds and closes its socket
        // io_uring lets go of a registered file asynchronously once the ring
        // is gone: wait (bounded) for the end of stream rather than expect it
        // at this instant.
        pollfd end_of_stream{peer, POLLIN, 0};
        CHECK(::poll(&end_of_stream, 1, 5000) == 1);
        char byte = 0;
        CHECK(::read(peer, &byte, 1) == 0);
        ::close(peer);
    }
}
