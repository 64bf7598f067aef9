// Any number of tasks may wait on one socket at once, for the same direction
// (two acceptors on a listener, two readers or two writers on a stream), as
// in tokio: each is woken when its socket is ready, none waits for ever.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "waiting_tasks.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

using net_test::join_patiently;
using net_test::start_waiting;

task<std::uint16_t> accept_one(net::tcp_listener& listener, sync::oneshot_sender<bool> waiting) {
    waiting.send(true);
    net::tcp_stream s = co_await listener.accept();
    co_return s.peer_address().port();
}

task<std::string> read_some(net::unix_stream& s, std::size_t size,
                            sync::oneshot_sender<bool> waiting) {
    waiting.send(true);
    std::string got(size, '\0');
    got.resize(co_await s.read(got.data(), got.size()));
    co_return got;
}

task<std::size_t> write_block(net::unix_stream& s, sync::oneshot_sender<bool> waiting) {
    waiting.send(true);
    std::string block(4096, 'w');
    co_return co_await s.write(block.data(), block.size());
}

/// Fills `s`'s send buffer: the next write waits.
void fill(net::unix_stream& s) {
    const std::string block(4096, 'f');
    while (::write(s.native_handle(), block.data(), block.size()) > 0) {
    }
    REQUIRE(errno == EAGAIN);
}

task<void> two_acceptors() {
    auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
    auto acceptors = co_await start_waiting<std::uint16_t>(
        2, [&](int, sync::oneshot_sender<bool> tx) { return accept_one(listener, std::move(tx)); });
    std::vector<net::tcp_stream> clients;
    for (int i = 0; i < 2; ++i)
        clients.push_back(co_await net::tcp_stream::connect(listener.local_address(), 2s));
    std::vector<std::uint16_t> accepted;
    for (auto& a : acceptors)
        accepted.push_back(co_await join_patiently(std::move(a), "an acceptor"));
    std::vector<std::uint16_t> connected;
    for (auto& c : clients)
        connected.push_back(c.local_address().port());
    std::sort(accepted.begin(), accepted.end());
    std::sort(connected.begin(), connected.end());
    CHECK(accepted == connected);
}

task<void> two_readers() {
    auto [a, b] = net::unix_stream::pair();
    auto readers = co_await start_waiting<std::string>(
        2, [&](int, sync::oneshot_sender<bool> tx) { return read_some(a, 1, std::move(tx)); });
    co_await b.write_all("xy");
    std::string got;
    for (auto& r : readers)
        got += co_await join_patiently(std::move(r), "a reader");
    std::sort(got.begin(), got.end());
    CHECK(got == "xy");
}

task<void> two_writers() {
    auto [a, b] = net::unix_stream::pair();
    fill(a);
    auto writers = co_await start_waiting<std::size_t>(
        2, [&](int, sync::oneshot_sender<bool> tx) { return write_block(a, std::move(tx)); });
    // Drains until both writers have written: each wrote at least one byte.
    std::vector<char> sink(1 << 16);
    auto drain = spawn([](net::unix_stream& b, std::vector<char>& sink) -> task<void> {
        while (co_await b.read(sink.data(), sink.size()) > 0) {
        }
    }(b, sink));
    for (auto& w : writers)
        CHECK(co_await join_patiently(std::move(w), "a writer") > 0);
    a.close();
    (co_await std::move(drain)).value();
}

}  // namespace

TEST_CASE("many waiters: two tasks accept on one listener - two clients - both are accepted") {
    net_test::on_every_setup("two acceptors", &two_acceptors);
}

TEST_CASE("many waiters: two tasks read one stream - each gets bytes") {
    net_test::on_every_setup("two readers", &two_readers);
}

TEST_CASE("many waiters: two tasks write to one full stream - both write once it drains") {
    net_test::on_every_setup("two writers", &two_writers);
}
