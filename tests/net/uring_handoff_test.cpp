// uring by default: a current-thread runtime's ring is its first driving
// thread's alone (SINGLE_ISSUER | DEFER_TASKRUN) while that thread is the
// only one to drive it, and is shared (moved to a ring any thread may enter)
// when another thread takes over: with I/O in flight when the worker goes
// to the background thread, or with nothing registered when another
// thread's block_on comes. Nothing in flight is lost on the way.
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "net_support.hpp"
#include "rtkit/sync/oneshot.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Whether a thread that never drove the runtime may enter its ring `fd`
/// (a ring of one issuer answers EEXIST).
bool others_may_enter(int fd) {
    int error = 0;
    std::thread([&] {
        if (syscall(__NR_io_uring_enter, fd, 0, 0, IORING_ENTER_GETEVENTS, nullptr, 0) < 0)
            error = errno;
    }).join();
    return error != EEXIST;
}

/// The ring of the one uring runtime of the test (the multishot-recv probe's
/// ring is closed by the time the runtime starts).
int only_ring() {
    const auto rings = net_test::io_uring_descriptors();
    REQUIRE(rings.size() == 1);
    return rings.front();
}

/// Echoes every line on every connection, for ever.
task<void> echo_server(net::tcp_listener& listener) {
    while (true) {
        net::tcp_stream s = co_await listener.accept();
        (void)spawn([](net::tcp_stream s) -> task<void> {
            std::vector<char> buf(256);
            while (const std::size_t n = co_await s.read(buf.data(), buf.size()))
                co_await s.write_all(buf.data(), n);
        }(std::move(s)));
    }
}

/// A blocking round trip through `fd` (a plain socket of this thread).
std::string round_trip(int fd, const std::string& text) {
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    std::string got(text.size(), '\0');
    std::size_t have = 0;
    while (have < got.size()) {
        const ssize_t n = ::read(fd, got.data() + have, got.size() - have);
        REQUIRE(n > 0);
        have += static_cast<std::size_t>(n);
    }
    return got;
}

}  // namespace

TEST_CASE("uring default: the ring stays its first thread's while only it drives the runtime") {
    runtime rt(net_test::config_for("uring"));
    for (int call = 0; call < 3; ++call) {
        const std::string got = rt.block_on([]() -> task<std::string> {
            auto [a, b] = net::unix_stream::pair();
            co_await a.write_all("ping");
            std::string text(4, '\0');
            co_await b.read_exact(text.data(), text.size());
            co_return text;
        }());
        CHECK(got == "ping");
    }
    CHECK_FALSE(others_may_enter(only_ring()));
}

TEST_CASE(
    "uring default: work outliving block_on moves to a shared ring - nothing in flight is lost") {
    test::run_or_abort_on_deadlock("uring ring handed to the background thread", [] {
        runtime rt(net_test::config_for("uring"));
        int client = -1;
        // The server outlives the block_on: an accept waits in the ring, and
        // a read on the connection made here (a multishot recv) too.
        auto listener = rt.block_on([](int& client) -> task<net::tcp_listener> {
            auto l = net::tcp_listener::bind(net::socket_address::loopback(0));
            client = net_test::connect_loopback(l.local_address().port());
            co_return l;
        }(client));
        REQUIRE(client >= 0);
        rt.block_on([](net::tcp_listener& l, int client) -> task<void> {
            (void)spawn(echo_server(l));
            // Served on this thread first, in the ring of one issuer, while
            // another thread plays the client.
            auto [tx, rx] = sync::make_oneshot<std::string>();
            std::thread peer(
                [client, tx = std::move(tx)]() mutable { tx.send(round_trip(client, "first")); });
            const std::optional<std::string> echoed = co_await rx;
            peer.join();
            CHECK(echoed == std::optional<std::string>("first"));
        }(listener, client));
        // The background thread serves now, in a ring any thread may enter:
        // the waiting read, and an accept of a new connection.
        CHECK(round_trip(client, "after the handoff") == "after the handoff");
        const int second = net_test::connect_loopback(listener.local_address().port());
        REQUIRE(second >= 0);
        CHECK(round_trip(second, "second") == "second");
        CHECK(others_may_enter(only_ring()));
        // And another thread's block_on may drive it.
        std::string from_elsewhere;
        std::thread([&] {
            from_elsewhere = rt.block_on([]() -> task<std::string> {
                auto [a, b] = net::unix_stream::pair();
                co_await a.write_all("elsewhere");
                std::string text(9, '\0');
                co_await b.read_exact(text.data(), text.size());
                co_return text;
            }());
        }).join();
        CHECK(from_elsewhere == "elsewhere");
        ::close(second);
        ::close(client);
        rt.shutdown();
    });
}

TEST_CASE("uring default: another thread's block_on with nothing registered gets a shared ring") {
    runtime rt(net_test::config_for("uring"));
    auto pipe_round_trip = []() -> task<std::string> {
        auto [reader, writer] = net::open_pipe();
        co_await writer.write_all("pipe");
        std::string text(4, '\0');
        co_await reader.read_exact(text.data(), text.size());
        co_return text;
    };
    CHECK(rt.block_on(pipe_round_trip()) == "pipe");
    CHECK_FALSE(others_may_enter(only_ring()));
    std::string got;
    std::thread([&] { got = rt.block_on(pipe_round_trip()); }).join();
    CHECK(got == "pipe");
    CHECK(others_may_enter(only_ring()));
    CHECK(rt.block_on(pipe_round_trip()) == "pipe");
}

TEST_CASE("uring default: a multi_thread runtime shares its ring from the start") {
    runtime_config config = net_test::config_for("uring");
    config.flavor = "multi_thread";
    config.workers = 2;
    runtime rt(config);
    const std::string got = rt.block_on([]() -> task<std::string> {
        auto [a, b] = net::unix_stream::pair();
        co_await a.write_all("mt");
        std::string text(2, '\0');
        co_await b.read_exact(text.data(), text.size());
        co_return text;
    }());
    CHECK(got == "mt");
    CHECK(others_may_enter(only_ring()));
}
