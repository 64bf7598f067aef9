// A block_on nested in a task, or in another root, does what any root does:
// real TCP through the runtime's reactor, waiting in the reactor.
#include <stdexcept>
#include <string>
#include <system_error>

#include "../support/deadlock_watchdog.hpp"
#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Accepts one connection and writes `text` to it.
task<void> greet_one(net::tcp_listener& listener, std::string text) {
    net::tcp_stream s = co_await listener.accept();
    co_await s.write_all(text.data(), text.size());
}

/// Connects to `port` and reads `n` bytes.
task<std::string> read_from(std::uint16_t port, std::size_t n) {
    net::tcp_stream c = co_await net::tcp_stream::connect(net::socket_address::loopback(port), 2s);
    std::string got(n, '\0');
    co_await c.read_exact(got.data(), n);
    co_return got;
}

}  // namespace

TEST_CASE("nested block_on: inside a task - the nested root reads from TCP") {
    for (const std::string& reactor : net_test::reactors) {
        INFO("reactor: " << reactor);
        test::run_or_abort_on_deadlock("block_on nested in a task doing TCP", [&] {
            runtime rt(net_test::config_for(reactor));
            const std::string got = rt.block_on([&]() -> task<std::string> {
                auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
                const std::uint16_t port = listener.local_address().port();
                auto server = spawn(greet_one(listener, "hello"));
                auto reader = spawn([](runtime& r, std::uint16_t p) -> task<std::string> {
                    // The worker is polling this task: the nested root drives it.
                    co_return r.block_on(read_from(p, 5));
                }(rt, port));
                outcome<std::string> read = co_await std::move(reader);
                REQUIRE((co_await std::move(server)).is_ok());
                co_return std::move(read).value();
            }());
            CHECK(got == "hello");
            CHECK(rt.is_quiescent());
        });
    }
}

TEST_CASE("nested block_on: inside a root - the nested root reads from TCP") {
    for (const std::string& reactor : net_test::reactors) {
        INFO("reactor: " << reactor);
        test::run_or_abort_on_deadlock("block_on nested in a root doing TCP", [&] {
            runtime rt(net_test::config_for(reactor));
            const std::string got = rt.block_on([&]() -> task<std::string> {
                auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
                auto server = spawn(greet_one(listener, "nested"));
                std::string read = rt.block_on(read_from(listener.local_address().port(), 6));
                REQUIRE((co_await std::move(server)).is_ok());
                co_return read;
            }());
            CHECK(got == "nested");
        });
    }
}

TEST_CASE("nested block_on: an I/O error in a nested root reaches the calling task") {
    for (const std::string& reactor : net_test::reactors) {
        INFO("reactor: " << reactor);
        runtime rt(net_test::config_for(reactor));
        const outcome<std::string> result = rt.block_on([&]() -> task<outcome<std::string>> {
            // A port that listens but never accepts would hang; one nobody
            // listens on refuses at once.
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const std::uint16_t port = listener.local_address().port();
            listener.close();
            co_return co_await spawn([](runtime& r, std::uint16_t p) -> task<std::string> {
                co_return r.block_on(read_from(p, 1));
            }(rt, port));
        }());
        REQUIRE(result.is_panicked());
        CHECK_THROWS_AS(std::rethrow_exception(result.exception()), std::system_error);
    }
}
