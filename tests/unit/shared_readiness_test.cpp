// Readiness on a reactor that several workers share: an operation that meets
// EAGAIN forgets the latched readiness, while another worker may latch new
// readiness at any moment. Whatever order the two come in, no readiness is
// lost: an edge-triggered reactor never reports the same data twice.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "rtkit/net/udp_socket.hpp"
#include "rtkit/net/unix_stream.hpp"
#include "test_support.hpp"
#include "worker_group.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

#ifdef RTKIT_CHAOS

namespace {

/// Once armed, at the next operation's EAGAIN: makes more data arrive
/// (`arrive`, true when it did) and has the reactor latch it before the
/// operation clears the readiness, by holding the reactor and polling it.
class arrival_before_clear {
  public:
    explicit arrival_before_clear(std::function<bool()> arrive)
        : arrive_(std::move(arrive)), hook_([this](detail::chaos::site s) { at(s); }) {}

    void arm() noexcept { armed_ = true; }
    bool latched() const noexcept { return latched_; }

  private:
    void at(detail::chaos::site s) {
        if (s != detail::chaos::site::readiness_clearing || !armed_.exchange(false)) return;
        detail::worker_group& group = detail::current_task()->home().group();
        detail::worker_group::io_lock lock(group);
        if (!arrive_()) return;
        for (int polls = 0; polls < 100 && !latched_; ++polls)
            latched_ = group.io().poll(100ms) > 0;
    }

    std::function<bool()> arrive_;
    std::atomic<bool> armed_{false};
    std::atomic<bool> latched_{false};
    test::chaos_hook hook_;
};

/// Two workers sharing epoll, whose edges come once (uring polls again for
/// each wait, so it cannot lose one this way).
runtime_config shared_epoll() {
    runtime_config config = test::multi_thread(2);
    config.reactor.preference = {"epoll"};
    config.reactor.strict = true;
    return config;
}

task<std::size_t> read_into(net::unix_stream& s, char* buffer, std::size_t size) {
    co_return co_await s.read(buffer, size);
}

task<std::size_t> recv_into(net::udp_socket& s, char* buffer, std::size_t size) {
    co_return (co_await s.recv_from(buffer, size)).size;
}

}  // namespace

TEST_CASE("shared reactor: data latched between a read's EAGAIN and its clear stays readable") {
    // The retry after the clear takes 100 of the 300 bytes that came; the 200
    // left must still answer the next read.
    std::atomic<int> peer{-1};
    arrival_before_clear more([&] {
        const std::string bytes(300, 'm');
        return ::write(peer.load(), bytes.data(), bytes.size()) == 300;
    });
    runtime rt(shared_epoll());
    rt.block_on([&]() -> task<void> {
        auto [reader, writer] = net::unix_stream::pair();
        peer = writer.native_handle();
        char buffer[100];
        co_await writer.write_all(std::string(100, 'f'));
        CHECK(co_await reader.read(buffer, 100) == 100);  // readiness stays latched
        more.arm();
        CHECK(co_await reader.read(buffer, 100) == 100);  // EAGAIN, then the retry
        REQUIRE(more.latched());
        const auto rest = co_await timeout(10s, read_into(reader, buffer, 100));
        CHECK(rest == std::optional<std::size_t>(100));
    }());
}

TEST_CASE("shared reactor: datagrams latched between a recv's EAGAIN and its clear stay readable") {
    // Two datagrams come; the retry after the clear takes the first.
    std::atomic<int> sender{-1};
    net::socket_address to = net::socket_address::loopback(0);
    arrival_before_clear more([&] {
        for (int i = 0; i < 2; ++i)
            if (::sendto(sender.load(), "d", 1, 0, to.data(), to.size()) != 1) return false;
        return true;
    });
    runtime rt(shared_epoll());
    rt.block_on([&]() -> task<void> {
        auto receiver = net::udp_socket::bind(net::socket_address::loopback(0));
        auto source = net::udp_socket::bind(net::socket_address::loopback(0));
        to = receiver.local_address();
        sender = source.native_handle();
        char buffer[16];
        co_await source.send_to("f", to);
        CHECK(co_await recv_into(receiver, buffer, sizeof buffer) == 1);  // latched stays
        more.arm();
        CHECK(co_await recv_into(receiver, buffer, sizeof buffer) == 1);  // EAGAIN, the retry
        REQUIRE(more.latched());
        const auto second = co_await timeout(10s, recv_into(receiver, buffer, sizeof buffer));
        CHECK(second == std::optional<std::size_t>(1));
    }());
}

#endif
