// UDP on loopback: datagrams keep their boundaries, connected and not,
// IPv4 and IPv6, waits that are woken, cancelled and given deadlines, and
// the ICMP error of a closed port.
#include <sys/socket.h>

#include <chrono>
#include <string>
#include <system_error>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

task<net::received_datagram> receive_from(net::udp_socket& s, std::vector<char>& buffer) {
    co_return co_await s.recv_from(buffer.data(), buffer.size());
}

task<std::size_t> receive(net::udp_socket& s, std::vector<char>& buffer) {
    co_return co_await s.recv(buffer.data(), buffer.size());
}

}  // namespace

TEST_CASE("udp: send_to and recv_from keep each datagram whole - and say who sent it") {
    for (const net_test::setup& setup : net_test::setups) {
        for (const char* host : {"127.0.0.1:0", "[::1]:0"}) {
            INFO(setup.name() << " on " << host);
            runtime rt(net_test::config_for(setup));
            rt.block_on([host]() -> task<void> {
                auto a = net::udp_socket::bind(net::socket_address::parse(host));
                auto b = net::udp_socket::bind(net::socket_address::parse(host));
                const auto a_address = a.local_address();
                const auto b_address = b.local_address();
                REQUIRE(b_address.port() != 0);
                CHECK(co_await a.send_to("first", b_address) == 5);
                CHECK(co_await a.send_to("second datagram", b_address) == 15);
                std::vector<char> buffer(64);
                net::received_datagram got = co_await b.recv_from(buffer.data(), buffer.size());
                CHECK(net_test::text_of(buffer, got.size) == "first");
                CHECK(got.from.to_string() == a_address.to_string());
                got = co_await b.recv_from(buffer.data(), buffer.size());
                CHECK(net_test::text_of(buffer, got.size) == "second datagram");
                // A datagram longer than the buffer: the rest of it is lost.
                co_await a.send_to("0123456789", b_address);
                co_await a.send_to("next", b_address);
                got = co_await b.recv_from(buffer.data(), 4);
                CHECK(net_test::text_of(buffer, got.size) == "0123");
                got = co_await b.recv_from(buffer.data(), buffer.size());
                CHECK(net_test::text_of(buffer, got.size) == "next");
            }());
        }
    }
}

TEST_CASE("udp: a connected socket sends and receives with its peer only") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto a = net::udp_socket::bind(net::socket_address::loopback(0));
            auto b = net::udp_socket::bind(net::socket_address::loopback(0));
            auto stranger = net::udp_socket::bind(net::socket_address::loopback(0));
            a.connect(b.local_address());
            b.connect(a.local_address());
            CHECK(a.peer_address().to_string() == b.local_address().to_string());
            // The stranger's datagram is dropped by the kernel: b hears only a.
            co_await stranger.send_to("ignore me", b.local_address());
            std::vector<char> buffer(64);
            for (int round = 0; round < 50; ++round) {
                const std::string ping = "ping " + std::to_string(round);
                CHECK(co_await a.send(ping) == ping.size());
                const std::size_t n = co_await b.recv(buffer.data(), buffer.size());
                REQUIRE(net_test::text_of(buffer, n) == ping);
                co_await b.send("pong");
                CHECK(net_test::text_of(buffer, co_await a.recv(buffer.data(), buffer.size())) ==
                      "pong");
            }
            // Datagrams queued together still come out one by one, short ones too.
            co_await a.send("x");
            co_await a.send("yy");
            co_await a.send("zzz");
            CHECK(co_await b.recv(buffer.data(), buffer.size()) == 1);
            CHECK(co_await b.recv(buffer.data(), buffer.size()) == 2);
            CHECK(co_await b.recv(buffer.data(), buffer.size()) == 3);
        }());
    }
}

TEST_CASE("udp: a waiting recv is woken by a datagram - a cancelled one leaves it to the next") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto a = net::udp_socket::bind(net::socket_address::loopback(0));
            auto b = net::udp_socket::bind(net::socket_address::loopback(0));
            b.connect(a.local_address());
            std::vector<char> first(64), second(64), third(64);
            // Waiting before anything was sent: woken by the datagram.
            auto waiting = spawn(receive_from(a, first));
            co_await yield_now();
            co_await b.send("wake up");
            net::received_datagram got = (co_await std::move(waiting)).value();
            CHECK(net_test::text_of(first, got.size) == "wake up");
            // A recv cancelled while it waits takes nothing.
            auto cancelled = spawn(receive_from(a, second));
            co_await yield_now();
            cancelled.cancel();
            CHECK((co_await std::move(cancelled)).is_cancelled());
            co_await b.send("kept");
            got = co_await a.recv_from(third.data(), third.size());
            CHECK(net_test::text_of(third, got.size) == "kept");
            CHECK(second[0] == '\0');
            // The same for a connected recv (a submitted READ with io_uring).
            a.connect(b.local_address());
            auto cancelled_recv = spawn(receive(a, second));
            co_await yield_now();
            cancelled_recv.cancel();
            CHECK((co_await std::move(cancelled_recv)).is_cancelled());
            co_await b.send("after");
            CHECK(net_test::text_of(third, co_await a.recv(third.data(), third.size())) == "after");
            CHECK(second[0] == '\0');
        }());
    }
}

TEST_CASE("udp: a recv with a deadline gives up with ETIMEDOUT") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto a = net::udp_socket::bind(net::socket_address::loopback(0));
            auto b = net::udp_socket::bind(net::socket_address::loopback(0));
            a.connect(b.local_address());
            char buffer[16];
            std::error_code code;
            try {
                co_await a.recv(buffer, sizeof buffer).with_deadline(now() + 30ms);
            } catch (const std::system_error& e) {
                code = e.code();
            }
            CHECK(code == std::errc::timed_out);
        }());
    }
}

TEST_CASE("udp: a datagram to a closed port makes the connected socket's recv fail") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            net::socket_address closed;
            {
                auto gone = net::udp_socket::bind(net::socket_address::loopback(0));
                closed = gone.local_address();
            }
            auto a = net::udp_socket::bind(net::socket_address::loopback(0));
            a.connect(closed);
            co_await a.send("anyone?");
            char buffer[16];
            std::error_code code;
            std::string what;
            try {
                co_await a.recv(buffer, sizeof buffer);
            } catch (const std::system_error& e) {
                code = e.code();
                what = e.what();
            }
            CHECK(code == std::errc::connection_refused);
            CHECK(what.find(closed.to_string()) != std::string::npos);
        }());
    }
}

TEST_CASE("udp: bind errors name the address") {
    runtime rt(net_test::config_for("epoll"));
    rt.block_on([]() -> task<void> {
        auto taken = net::udp_socket::bind(net::socket_address::loopback(0));
        const auto address = taken.local_address();
        std::string what;
        try {
            net::udp_socket::bind(address);
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::address_in_use);
            what = e.what();
        }
        CHECK(what.find("bind udp to " + address.to_string()) == 0);
        co_return;
    }());
}
