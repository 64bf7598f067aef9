// A current-thread runtime's block_on on one thread while another thread
// holds its worker polls its root without the worker. Such a root may not
// use the reactor (only the thread driving the worker may), so a socket it
// uses, made earlier, refuses the operation with a clear error instead of
// touching the reactor from the wrong thread.
#include <chrono>
#include <string>
#include <thread>

#include "../support/deadlock_watchdog.hpp"
#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("block_on without the worker: I/O on a socket made earlier is refused - clearly") {
    for (const std::string& reactor : net_test::reactors) {
        INFO("reactor: " << reactor);
        test::run_or_abort_on_deadlock("block_on while another thread holds the worker", [&] {
            runtime rt(net_test::config_for(reactor));
            auto listener = rt.block_on([]() -> task<net::tcp_listener> {
                co_return net::tcp_listener::bind(net::socket_address::loopback(0));
            }());
            // A connection waits to be accepted: an accept would succeed at once.
            const int client = net_test::connect_loopback(listener.local_address().port());
            REQUIRE(client >= 0);
            // Another thread holds the worker, in a block_on of its own.
            net_test::worker_holder holder(rt);
            std::string refusal;
            try {
                rt.block_on(
                    [](net::tcp_listener& l) -> task<void> { co_await l.accept(); }(listener));
            } catch (const no_runtime_error& e) {
                refusal = e.what();
            }
            holder.release();
            CHECK(refusal.find("accept on 127.0.0.1:") == 0);
            CHECK(refusal.find("another thread drives it now") != std::string::npos);
            // The worker's own thread accepts it, once it has the worker.
            rt.block_on([](net::tcp_listener& l) -> task<void> { co_await l.accept(); }(listener));
            ::close(client);
        });
    }
}

TEST_CASE("block_on without the worker: registering a socket is refused - clearly") {
    for (const std::string& reactor : net_test::reactors) {
        INFO("reactor: " << reactor);
        test::run_or_abort_on_deadlock("registering while another thread holds the worker", [&] {
            runtime rt(net_test::config_for(reactor));
            net_test::worker_holder holder(rt);
            std::string refusal;
            try {
                rt.block_on([]() -> task<void> {
                    (void)net::tcp_listener::bind(net::socket_address::loopback(0));
                    co_return;
                }());
            } catch (const no_runtime_error& e) {
                refusal = e.what();
            }
            holder.release();
            CHECK(refusal.find("I/O needs the runtime's worker") == 0);
            CHECK(refusal.find("another thread drives it now") != std::string::npos);
            // The thread that drives the worker registers it.
            rt.block_on([]() -> task<void> {
                (void)net::tcp_listener::bind(net::socket_address::loopback(0));
                co_return;
            }());
        });
    }
}
