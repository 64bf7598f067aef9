// What rtkit/reactor.hpp says the kernel tolerates of a reactor, shown on
// reactors that do it (variant_reactor.cpp): they pass the suite, and
// programs on them run as on a correct one.
//   eintr_not_retried  a signal during its wait makes poll() return early
//   stale_after_reuse  readiness a descriptor had when it was removed
//                      (bytes, a hang-up, an error) is delivered to the next
//                      registration of its number
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "rtkit/conformance/conformance.hpp"
#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"
#include "rtkit/sync/oneshot.hpp"
#include "variant_support.hpp"

namespace {

using namespace std::chrono_literals;

rtkit::runtime_config config_for(const std::string& name, bool multi_thread) {
    rtkit::runtime_config config;
    config.plugin_search_path = {RTKIT_TEST_VARIANT_DIR};
    config.reactor.preference = {name};
    config.reactor.strict = true;
    if (multi_thread) {
        config.flavor = "multi_thread";
        config.workers = 2;
    }
    return config;
}

/// Waits (bounded) until `fd` has something to report: bytes, a hang-up or an error.
void wait_for_news(int fd) {
    pollfd p{fd, POLLIN, 0};
    REQUIRE(::poll(&p, 1, 5000) == 1);
}

/// Reads one byte, says so, then another: the second read meets EAGAIN
/// first, which must forget stale readiness rather than spin on it.
rtkit::task<std::string> read_two(rtkit::net::unix_stream& s,
                                  rtkit::sync::oneshot_sender<bool> first) {
    char got[2] = {};
    co_await s.read_exact(got, 1);
    first.send(true);
    co_await s.read_exact(got + 1, 1);
    co_return std::string(got, 2);
}

/// Two bytes from `from` to `to`, the second once the first was read.
rtkit::task<void> two_bytes_across(rtkit::net::unix_stream& from, rtkit::net::unix_stream& to) {
    auto [tx, rx] = rtkit::sync::make_oneshot<bool>();
    auto reader = rtkit::spawn(read_two(to, std::move(tx)));
    co_await from.write_all("x");
    REQUIRE(co_await rx);
    co_await from.write_all("y");
    CHECK((co_await std::move(reader)).value() == "xy");
}

/// Connection after connection through one listener, each closed with
/// readiness left on it: bytes nobody read, and every other time a reset
/// (an error and a hang-up). The next sockets reuse the numbers (the next
/// connection's, and a socket pair's), and each must still carry bytes.
rtkit::task<void> connections_reusing_numbers() {
    auto listener = rtkit::net::tcp_listener::bind(rtkit::net::socket_address::loopback(0));
    for (int round = 0; round < 24; ++round) {
        auto client = co_await rtkit::net::tcp_stream::connect(listener.local_address(), 2s);
        auto server = co_await listener.accept();
        co_await client.write_all("ping");
        char got[4] = {};
        co_await server.read_exact(got, sizeof got);
        CHECK(std::string(got, sizeof got) == "ping");
        co_await server.write_all("pong");
        co_await client.read_exact(got, sizeof got);
        CHECK(std::string(got, sizeof got) == "pong");
        // Leave something on the server's socket as it goes.
        co_await client.write_all("unread");
        if (round % 2 == 1) {
            const linger reset{1, 0};
            REQUIRE(::setsockopt(client.native_handle(), SOL_SOCKET, SO_LINGER, &reset,
                                 sizeof reset) == 0);
        }
        client.close();
        wait_for_news(server.native_handle());
        server.close();
        auto [a, b] = rtkit::net::unix_stream::pair();  // the numbers just freed
        co_await two_bytes_across(a, b);
        co_await two_bytes_across(b, a);
    }
}

std::atomic<int> signals_seen{0};
void count_signal(int) {
    signals_seen.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

TEST_CASE("tolerated: a reactor that does not retry EINTR passes the suite and runs programs") {
    const auto r =
        rtkit::conformance::run_reactor_conformance(variant_file("reactor", "eintr_not_retried"));
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.passed());

    // Signals land on the thread driving the runtime while it waits in the
    // reactor, for a sleep and for a pipe written late.
    struct sigaction caught {};
    caught.sa_handler = &count_signal;
    sigemptyset(&caught.sa_mask);
    struct sigaction previous {};
    sigaction(SIGURG, &caught, &previous);
    rtkit::runtime rt(config_for("eintr_not_retried", false));
    std::atomic<bool> done{false};
    const pthread_t driver = pthread_self();
    std::thread sender([&] {
        // One signal at a time: the next once the handler took the last.
        while (!done.load()) {
            const int seen = signals_seen.load();
            pthread_kill(driver, SIGURG);
            while (!done.load() && signals_seen.load() == seen)
                std::this_thread::yield();
        }
    });
    const int before = signals_seen.load();
    const std::string got = rt.block_on([]() -> rtkit::task<std::string> {
        co_await rtkit::sleep(30ms);
        auto [reader, writer] = rtkit::net::open_pipe();
        auto late = rtkit::spawn([](rtkit::net::pipe_writer& w) -> rtkit::task<void> {
            co_await rtkit::sleep(30ms);
            co_await w.write_all("late");
        }(writer));
        std::string text(4, '\0');
        co_await reader.read_exact(text.data(), text.size());
        (co_await std::move(late)).value();
        co_return text;
    }());
    done.store(true);
    sender.join();
    sigaction(SIGURG, &previous, nullptr);
    CHECK(got == "late");
    CHECK(signals_seen.load() > before);
}

TEST_CASE("tolerated: stale readiness for a reused descriptor passes the suite and runs programs") {
    const auto r =
        rtkit::conformance::run_reactor_conformance(variant_file("reactor", "stale_after_reuse"));
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.passed());
    for (const bool multi_thread : {false, true}) {
        INFO(std::string(multi_thread ? "multi_thread" : "current_thread"));
        rtkit::test::run_or_abort_on_deadlock("connections on stale readiness", [&] {
            rtkit::runtime rt(config_for("stale_after_reuse", multi_thread));
            rt.block_on(connections_reusing_numbers());
        });
    }
}
