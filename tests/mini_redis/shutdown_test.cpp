// SIGINT and SIGTERM: the server stops accepting, lets each connection finish
// what it has read and write the replies it owes, closes idle connections,
// and exits 0; past --shutdown-timeout it cuts off what is left, and a second
// signal ends the stop at once. Every wait here is for a state (the stop's
// line on stderr, a connection's end, the process's exit), never a sleep.
#include <doctest/doctest.h>

#include <signal.h>

#include <cerrno>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "processes.hpp"
#include "raw_client.hpp"

using namespace mini_redis_test;

namespace {

/// Under ThreadSanitizer a signal from another process is not a state these
/// tests can wait for: TSan runs the handler only once the thread the signal
/// landed on enters a function it intercepts, and a runtime thread parked in
/// epoll_pwait2, io_uring_enter or a futex may never do so
/// (tests/net/signal_test.cpp aims its signals at its own thread instead).
#if defined(__SANITIZE_THREAD__)
constexpr bool signals_from_outside_wait = true;
#else
constexpr bool signals_from_outside_wait = false;
#endif

const std::string big_value(100000, 'b');
const std::string big_reply = "$100000\r\n" + big_value + "\r\n";

std::string stop_line(const char* signal, int clients, int timeout_seconds = 10) {
    return std::string("rtkit-mini-redis: received ") + signal +
           ": shutting down (no new connections; " + std::to_string(clients) +
           (clients == 1 ? " client has" : " clients have") + " up to " +
           std::to_string(timeout_seconds) + " s to finish)\n";
}

/// True when a connection to the port is refused (nothing listens there).
bool refused(std::uint16_t port) {
    try {
        raw_client c(port);
    } catch (const std::system_error& e) {
        return e.code().value() == ECONNREFUSED;
    }
    return false;
}

/// True when the server closed the connection and sent nothing more.
bool closed_quietly(raw_client& c) {
    bool closed = false;
    const std::string got = c.read_until_closed(closed);
    INFO("got " << got);
    return closed && got.empty();
}

/// A client whose replies pile up unread: `gets` replies of 100 kB, far more
/// than the kernel buffers between it and the server hold. Its requests end
/// with a PUBLISH to "read-all", so a subscriber there learns that the server
/// has read and run all of them.
std::unique_ptr<raw_client> stalled_client(std::uint16_t port, int gets = 100) {
    auto c = std::make_unique<raw_client>(port, 4096);
    std::string requests;
    for (int i = 0; i < gets; ++i)
        requests += "GET big\r\n";
    c->send(requests + "PUBLISH read-all done\r\n");
    return c;
}

/// Sets "big", then subscribes to "read-all".
std::unique_ptr<raw_client> read_all_watcher(std::uint16_t port) {
    auto c = std::make_unique<raw_client>(port);
    c->send("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n" + big_reply + "SUBSCRIBE read-all\r\n");
    const std::string confirmed = "+OK\r\n*3\r\n$9\r\nsubscribe\r\n$8\r\nread-all\r\n:1\r\n";
    REQUIRE(c->read(confirmed.size()) == confirmed);
    return c;
}

bool heard_read_all(raw_client& watcher) {
    const std::string message = "*3\r\n$7\r\nmessage\r\n$8\r\nread-all\r\n$4\r\ndone\r\n";
    return watcher.read(message.size()) == message;
}

}  // namespace

TEST_CASE("shutdown: on SIGTERM or SIGINT idle clients are closed and the server exits 0" *
          doctest::skip(signals_from_outside_wait)) {
    for (const setup& runtime : setups()) {
        for (const int signal : {SIGTERM, SIGINT}) {
            const char* name = signal == SIGTERM ? "SIGTERM" : "SIGINT";
            INFO(runtime.name << ", " << name);
            server s(runtime);
            std::vector<std::unique_ptr<raw_client>> idle;
            for (int i = 0; i < 3; ++i) {
                idle.push_back(std::make_unique<raw_client>(s.port()));
                idle.back()->send("PING\r\n");
                REQUIRE(idle.back()->read(7) == "+PONG\r\n");
            }
            raw_client subscriber(s.port());
            subscriber.send("SUBSCRIBE news\r\n");
            const std::string confirmed = "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n";
            REQUIRE(subscriber.read(confirmed.size()) == confirmed);

            CHECK(s.stop(signal) == 0);
            CHECK(s.errors() == stop_line(name, 4));
            for (auto& c : idle)
                CHECK(closed_quietly(*c));
            CHECK(closed_quietly(subscriber));
        }
    }
}

TEST_CASE(
    "shutdown: a client mid-pipeline gets every reply it is owed - new connections are refused" *
    doctest::skip(signals_from_outside_wait)) {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        INFO("its stderr: " << s.errors());
        auto watcher = read_all_watcher(s.port());
        auto stalled = stalled_client(s.port());
        // The server has run every request of the pipeline; most replies wait
        // in the connection's outbox for a client that does not read yet.
        REQUIRE(heard_read_all(*watcher));

        s.signal(SIGTERM);
        REQUIRE(s.wait_for_errors(stop_line("SIGTERM", 2)));
        // The stalled client holds the server up: a refused connection means
        // the listener is closed, not that the process is gone.
        CHECK(refused(s.port()));
        CHECK(closed_quietly(*watcher));

        std::string expected;
        for (int i = 0; i < 100; ++i)
            expected += big_reply;
        expected += ":1\r\n";  // the PUBLISH reached the watcher
        bool closed = false;
        const std::string got = stalled->read_until_closed(closed, 30s);
        CHECK(closed);
        CHECK(got.size() == expected.size());
        CHECK(got == expected);
        CHECK(s.wait() == 0);
        CHECK(s.errors() == stop_line("SIGTERM", 2));
    }
}

TEST_CASE("shutdown: past --shutdown-timeout the clients left are cut off - the server exits 0" *
          doctest::skip(signals_from_outside_wait)) {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime, {"--shutdown-timeout", "1"});
        INFO("its stderr: " << s.errors());
        auto watcher = read_all_watcher(s.port());
        auto stalled = stalled_client(s.port());
        REQUIRE(heard_read_all(*watcher));
        // Never read: the stalled client's replies cannot all leave in time.
        CHECK(s.stop(SIGTERM) == 0);
        CHECK(s.errors() == stop_line("SIGTERM", 2, 1) +
                                "rtkit-mini-redis: 1 client still connected after the shutdown "
                                "timeout (1 s): closing them\n");
        bool closed = false;
        const std::string got = stalled->read_until_closed(closed, 30s);
        CHECK(closed);
        CHECK(got.size() < 100 * big_reply.size());
    }
}

TEST_CASE("shutdown: a second signal during the stop ends it at once - exit status 1" *
          doctest::skip(signals_from_outside_wait)) {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        // A bound the test would notice: the wait below gives up long before it.
        server s(runtime, {"--shutdown-timeout", "3600"});
        INFO("its stderr: " << s.errors());
        auto watcher = read_all_watcher(s.port());
        auto stalled = stalled_client(s.port());
        REQUIRE(heard_read_all(*watcher));
        s.signal(SIGTERM);
        REQUIRE(s.wait_for_errors(stop_line("SIGTERM", 2, 3600)));
        // The idle watcher goes first (the server closes its socket after it
        // left the client list): the second signal then cuts off one client.
        REQUIRE(closed_quietly(*watcher));
        s.signal(SIGINT);
        CHECK(s.wait(30s) == 1);
        CHECK(s.errors() == stop_line("SIGTERM", 2, 3600) +
                                "rtkit-mini-redis: received SIGINT again: exiting now (1 client "
                                "cut off)\n");
        bool closed = false;
        stalled->read_until_closed(closed, 30s);
        CHECK(closed);
    }
}
