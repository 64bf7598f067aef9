// Name resolution on the blocking pool, and connecting by host name.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <system_error>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

bool is_loopback(const net::socket_address& a) {
    if (a.family() == AF_INET)
        return ntohl(reinterpret_cast<const sockaddr_in*>(a.data())->sin_addr.s_addr) >> 24 == 127;
    return a.family() == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(a.data())->sin6_addr);
}

/// Accepts one connection and writes `greeting` on it.
task<void> greet_once(net::tcp_listener& listener, std::string greeting) {
    net::tcp_stream s = co_await listener.accept();
    co_await s.write_all(greeting);
}

}  // namespace

TEST_CASE("resolve: localhost gives loopback addresses - numbers need no lookup") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            const auto local = co_await net::resolve("localhost", 8080);
            REQUIRE(!local.empty());
            for (const net::socket_address& a : local) {
                INFO(a.to_string());
                CHECK(is_loopback(a));
                CHECK(a.port() == 8080);
            }
            const auto by_text = co_await net::resolve("localhost:8080");
            CHECK(by_text.size() == local.size());
            const auto v4 = co_await net::resolve("127.0.0.1:80");
            REQUIRE(v4.size() == 1);
            CHECK(v4[0].to_string() == "127.0.0.1:80");
            const auto v6 = co_await net::resolve("[::1]:443");
            REQUIRE(v6.size() == 1);
            CHECK(v6[0].to_string() == "[::1]:443");
        }());
    }
}

TEST_CASE("resolve: bad text is refused before any lookup - an unknown name fails the lookup") {
    runtime rt(net_test::config_for("epoll"));
    rt.block_on([]() -> task<void> {
        CHECK_THROWS_WITH_AS(co_await net::resolve("localhost"),
                             doctest::Contains("is not host:port"), std::invalid_argument);
        CHECK_THROWS_WITH_AS(co_await net::resolve("localhost:http"),
                             doctest::Contains("'http' is not a port"), std::invalid_argument);
        CHECK_THROWS_WITH_AS(co_await net::resolve("localhost:65536"),
                             doctest::Contains("is not a port (0..65535)"), std::invalid_argument);
        CHECK_THROWS_WITH_AS(co_await net::resolve("::1:80"),
                             doctest::Contains("in brackets, as [::1]:80"), std::invalid_argument);
        CHECK_THROWS_AS(co_await net::resolve("", 80), std::invalid_argument);
        // RFC 6761: the .invalid domain never resolves.
        try {
            co_await net::resolve("no-such-host.invalid", 80);
            FAIL("an unknown name resolved");
        } catch (const std::system_error& e) {
            CHECK(std::string(e.what()).find("resolve no-such-host.invalid:80: ") == 0);
        }
    }());
}

TEST_CASE("connect: by host name - localhost:PORT reaches a loopback listener") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const std::uint16_t port = listener.local_address().port();
            auto server = spawn(greet_once(listener, "hello"));
            net::tcp_stream s =
                co_await net::tcp_stream::connect("localhost:" + std::to_string(port), 5s);
            CHECK(s.peer_address().to_string() == "127.0.0.1:" + std::to_string(port));
            char buf[5];
            co_await s.read_exact(buf, sizeof buf);
            CHECK(std::string(buf, sizeof buf) == "hello");
            CHECK((co_await std::move(server)).is_ok());
        }());
    }
}

TEST_CASE("connect: by host name - every address refused gives the last error and the addresses") {
    runtime rt(net_test::config_for("epoll"));
    rt.block_on([]() -> task<void> {
        // A port nothing listens on: bind one, note it, close it.
        std::uint16_t port = 0;
        {
            auto l = net::tcp_listener::bind(net::socket_address::loopback(0));
            port = l.local_address().port();
        }
        const std::string target = "localhost:" + std::to_string(port);
        try {
            co_await net::tcp_stream::connect(target);
            FAIL("connected to a closed port");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::connection_refused);
            const std::string what = e.what();
            CHECK(what.find("connect to " + target + " (tried ") == 0);
            CHECK(what.find(":" + std::to_string(port)) != std::string::npos);
        }
    }());
}

TEST_CASE("connect: by host name - the timeout bounds the whole connect") {
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
            std::error_code code;
            try {
                co_await net::tcp_stream::connect("localhost:" + std::to_string(target.port()),
                                                  150ms);
            } catch (const std::system_error& e) {
                code = e.code();
            }
            const auto waited = std::chrono::steady_clock::now() - start;
            for (int fd : fillers)
                ::close(fd);
            CHECK(code == std::errc::timed_out);
            CHECK(waited >= 140ms);
            CHECK(waited < 3s);
        }());
    }
}
