// TCP on 127.0.0.1: echo, partial reads, connect timeouts and refusals, hang-up.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <system_error>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Echoes one connection until the client shuts its side down.
task<std::size_t> echo_one(net::tcp_listener& listener) {
    net::tcp_stream s = co_await listener.accept();
    std::vector<char> buf(4096);
    std::size_t total = 0;
    while (true) {
        const std::size_t n = co_await s.read(buf.data(), buf.size());
        if (n == 0) break;
        co_await s.write_all(buf.data(), n);
        total += n;
    }
    co_return total;
}

/// A port with nothing listening on it.
std::uint16_t closed_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t size = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
    ::close(fd);
    return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("tcp: echo round trips through accept - connect - read and write_all") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        const int threads_before = test::baseline_thread_count();
        runtime rt(net_test::config_for(setup));
        CHECK(rt.description().reactor.find(setup.reactor) != std::string::npos);
        const bool one_thread = !setup.multi_thread;
        rt.block_on([threads_before, one_thread]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const std::uint16_t port = listener.local_address().port();
            REQUIRE(port != 0);
            auto server = spawn(echo_one(listener));
            net::tcp_stream client =
                co_await net::tcp_stream::connect(net::socket_address::loopback(port), 2s);
            client.set_nodelay(true);
            CHECK(client.peer_address().port() == port);
            std::vector<char> back(64);
            for (int round = 0; round < 200; ++round) {
                const std::string message = "message " + std::to_string(round) + " end";
                co_await client.write_all(message);
                co_await client.read_exact(back.data(), message.size());
                REQUIRE(net_test::text_of(back, message.size()) == message);
            }
            // 1 MiB at once: many partial writes and reads on both sides.
            std::vector<char> big(1 << 20), echoed(1 << 20);
            for (std::size_t i = 0; i < big.size(); ++i)
                big[i] = static_cast<char>(i * 7 + 3);
            auto writer = spawn([](net::tcp_stream& c, std::vector<char>& data) -> task<void> {
                co_await c.write_all(data.data(), data.size());
            }(client, big));
            co_await client.read_exact(echoed.data(), echoed.size());
            const outcome<void> wrote = co_await std::move(writer);
            CHECK(wrote.is_ok());
            CHECK(std::memcmp(big.data(), echoed.data(), big.size()) == 0);
            client.shutdown(net::shutdown_how::write);
            outcome<std::size_t> served = co_await std::move(server);
            REQUIRE(served.is_ok());
            CHECK(served.value() > big.size());
            // I/O inside block_on needs no second thread: socket calls in a
            // single-threaded process skip the kernel's file reference counting.
            if (one_thread) CHECK(test::thread_count() == threads_before);
        }());
    }
}

TEST_CASE("tcp: connecting to a port with nothing listening is refused - with the address") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        const std::uint16_t port = closed_port();
        rt.block_on([port]() -> task<void> {
            std::string message;
            int code = 0;
            try {
                co_await net::tcp_stream::connect(net::socket_address::loopback(port), 2s);
            } catch (const std::system_error& e) {
                message = e.what();
                code = e.code().value();
            }
            CHECK(code == ECONNREFUSED);
            CHECK(message.find("connect to 127.0.0.1:" + std::to_string(port)) !=
                  std::string::npos);
        }());
    }
}

TEST_CASE("tcp: connect gives up after its timeout when the listener's backlog is full") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            // Backlog 0: the kernel completes at most one handshake nobody
            // accepts, then drops further SYNs, so later connects hang.
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0), 0);
            const auto target = listener.local_address();
            std::vector<int> fillers;
            for (int i = 0; i < 4; ++i) {
                const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
                ::connect(fd, target.data(), target.size());
                fillers.push_back(fd);
            }
            co_await sleep(50ms);
            const auto start = std::chrono::steady_clock::now();
            int code = 0;
            std::string message;
            try {
                co_await net::tcp_stream::connect(target, 200ms);
            } catch (const std::system_error& e) {
                code = e.code().value();
                message = e.what();
            }
            const auto waited = std::chrono::steady_clock::now() - start;
            for (int fd : fillers)
                ::close(fd);
            CHECK(code == ETIMEDOUT);
            CHECK(message.find("timed out") != std::string::npos);
            CHECK(waited >= 190ms);
            CHECK(waited < 3s);
        }());
    }
}

TEST_CASE("tcp: the peer's close reads as end of stream - and writing then fails with EPIPE") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            auto accepted = spawn(listener.accept());
            net::tcp_stream client =
                co_await net::tcp_stream::connect(listener.local_address(), 2s);
            outcome<net::tcp_stream> server = co_await std::move(accepted);
            REQUIRE(server.is_ok());
            server.value().close();
            char byte = 0;
            const std::size_t at_end = co_await client.read(&byte, 1);
            CHECK(at_end == 0);
            int code = 0;
            std::string message;
            try {
                // The first write may still be accepted locally; the RST then fails the next.
                for (int i = 0; i < 100; ++i) {
                    co_await client.write_all("after close");
                    co_await sleep(5ms);
                }
            } catch (const std::system_error& e) {
                code = e.code().value();
                message = e.what();
            }
            CHECK((code == EPIPE || code == ECONNRESET));
            CHECK(message.find("write to 127.0.0.1:") != std::string::npos);
        }());
    }
}
