// A socket destroyed on a thread that does not drive the runtime's worker
// (moved out of block_on, or a parameter of a frame freed there): on the
// current-thread runtime only the driving thread may touch the reactor, so
// the worker deregisters and closes it; the peer sees the end of stream.
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "../support/deadlock_watchdog.hpp"
#include "net_support.hpp"
#include "rtkit/sync/oneshot.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// True when `fd` reads as end of stream within 5 seconds.
bool polls_end_of_stream(int fd) {
    pollfd readable{fd, POLLIN, 0};
    char byte = 0;
    return ::poll(&readable, 1, 5000) == 1 && ::read(fd, &byte, 1) == 0;
}

/// A stream the runtime accepted from `client` (a plain socket of this
/// thread), live in its reactor: it has read one byte.
net::tcp_stream accept_live_stream(runtime& rt, int& client) {
    return rt.block_on([](int& client) -> task<net::tcp_stream> {
        auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
        client = net_test::connect_loopback(listener.local_address().port());
        REQUIRE(client >= 0);
        net::tcp_stream accepted = co_await listener.accept();
        REQUIRE(::write(client, "x", 1) == 1);
        char byte = 0;
        CHECK(co_await accepted.read(&byte, 1) == 1);
        co_return accepted;
    }(client));
}

}  // namespace

TEST_CASE("a stream destroyed on a thread that does not drive the worker is closed by it") {
    for (const net_test::setup& setup : net_test::setups) {
        test::run_or_abort_on_deadlock("closing a stream on another thread", [&] {
            INFO(setup.name());  // doctest's context is per thread
            runtime rt(net_test::config_for(setup));
            int client = -1;
            net::tcp_stream server = accept_live_stream(rt, client);
            auto [tx, rx] = sync::make_oneshot<bool>();
            std::atomic<pid_t> driver{0};
            // Once this thread drives the worker and sleeps in the reactor (a
            // listener stays registered), another thread destroys the stream.
            std::thread closer([&, doomed = std::move(server), tx = std::move(tx)]() mutable {
                net_test::wait_until_asleep(driver);
                { auto gone = std::move(doomed); }
                tx.send(polls_end_of_stream(client));
            });
            const std::optional<bool> closed = rt.block_on([&]() -> task<std::optional<bool>> {
                auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
                driver.store(gettid());
                co_return co_await rx;
            }());
            closer.join();
            CHECK(closed == std::optional<bool>(true));
            ::close(client);
        });
    }
}

TEST_CASE("a stream destroyed in a block_on root polled without the worker is closed by it") {
    // A current-thread runtime: another thread holds the worker in a
    // block_on of its own, so this thread's root is polled without it and
    // may not touch the reactor. The worker, woken by the request, closes.
    for (const std::string& reactor : net_test::reactors) {
        test::run_or_abort_on_deadlock("closing a stream in a root without the worker", [&] {
            INFO("reactor: " << reactor);
            runtime rt(net_test::config_for(reactor));
            int client = -1;
            net::tcp_stream server = accept_live_stream(rt, client);
            net_test::worker_holder holder(rt);
            rt.block_on([](net::tcp_stream& doomed) -> task<void> {
                { auto gone = std::move(doomed); }
                co_return;
            }(server));
            // Closed while the other thread still holds the worker.
            CHECK(polls_end_of_stream(client));
            holder.release();
            ::close(client);
        });
    }
}

TEST_CASE("a stream destroyed off the worker just before shutdown is closed by the shutdown") {
    // The worker is left alone between block_on calls: the close waits in
    // its inbox, and shutdown must carry it out, not leave it to teardown.
    for (const net_test::setup& setup : net_test::setups) {
        test::run_or_abort_on_deadlock("closing a stream at shutdown", [&] {
            INFO(setup.name());
            runtime rt(net_test::config_for(setup));
            int client = -1;
            net::tcp_stream server = accept_live_stream(rt, client);
            { auto gone = std::move(server); }
            rt.shutdown();
            pollfd readable{client, POLLIN, 0};
            char byte = 0;
            REQUIRE(::poll(&readable, 1, 0) == 1);
            CHECK(::read(client, &byte, 1) == 0);
            ::close(client);
        });
    }
}
