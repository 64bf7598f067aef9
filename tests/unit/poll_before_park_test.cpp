// runtime_config::poll_before_park: a worker with nothing to run polls the
// reactor without blocking for a while before it sleeps in it. What arrives
// meanwhile (readiness, a timer's deadline, a wake from another thread) is
// taken up at once, and the worker never blocks for it. The time may change
// while the runtime runs (runtime::set_poll_before_park, cx's from a task).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "fault_plugins.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

constexpr int rounds = 50;
constexpr std::chrono::microseconds a_second_of_polling{1'000'000};

/// Echoes `rounds` messages of one byte on the first connection.
task<void> echo_rounds(net::tcp_listener& listener) {
    net::tcp_stream s = co_await listener.accept();
    char byte = 0;
    for (int i = 0; i < rounds; ++i) {
        co_await s.read_exact(&byte, 1);
        co_await s.write_all(&byte, 1);
    }
}

/// A client on a thread of its own, with blocking sockets: `rounds` round
/// trips. Calls `before` first (nothing by default).
void blocking_client(std::uint16_t port, const std::function<void()>& before = {}) {
    if (before) before();
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    for (int i = 0; i < rounds; ++i) {
        char byte = static_cast<char>(i);
        REQUIRE(::send(fd, &byte, 1, 0) == 1);
        REQUIRE(::recv(fd, &byte, 1, MSG_WAITALL) == 1);
        CHECK(byte == static_cast<char>(i));
    }
    ::close(fd);
}

/// How often the worker blocked in the (faulty, counting) epoll reactor while
/// it served `rounds` round trips to a client thread, with `configured` as the
/// polling time (runtime_config::poll_before_park), changed to `set_in_task`
/// by the root task (when given) before it serves, or to `set_by_client` by
/// the client thread (when given) before it connects.
int blocking_waits_serving(std::chrono::microseconds configured,
                           std::optional<std::chrono::microseconds> set_in_task = {},
                           std::optional<std::chrono::microseconds> set_by_client = {}) {
    runtime_config config = test::config_with_faulty("reactor");
    config.poll_before_park = configured;
    runtime rt(config);
    test::plugin_control& reactor = test::control_of("reactor");
    return rt.block_on([&]() -> task<int> {
        if (set_in_task) cx::current().set_poll_before_park(*set_in_task);
        auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
        const int before = reactor.blocking_waits();
        std::function<void()> before_connecting;
        if (set_by_client) before_connecting = [&] { rt.set_poll_before_park(*set_by_client); };
        std::thread client(blocking_client, listener.local_address().port(), before_connecting);
        co_await echo_rounds(listener);
        client.join();
        co_return reactor.blocking_waits() - before;
    }());
}

runtime_config polling_config(const std::string& reactor) {
    runtime_config config;
    config.reactor.preference = {reactor};
    config.reactor.strict = true;
    config.poll_before_park = a_second_of_polling;
    return config;
}

}  // namespace

TEST_CASE("poll before park: a worker whose I/O comes while it polls does not block for it") {
    const int polling = blocking_waits_serving(a_second_of_polling);
    const int sleeping = blocking_waits_serving(std::chrono::microseconds{0});
    INFO("blocking waits: " << polling << " polling first, " << sleeping << " without");
    // The client answers within microseconds, far inside the second of
    // polling; a few waits are allowed for a client thread descheduled long.
    CHECK(polling < rounds / 5);
    CHECK(sleeping > polling);
}

TEST_CASE("poll before park: a task changes the polling time while the runtime runs") {
    // Configured off, a task turns it on; configured on, a task turns it off.
    const int turned_on = blocking_waits_serving(std::chrono::microseconds{0}, a_second_of_polling);
    const int turned_off =
        blocking_waits_serving(a_second_of_polling, std::chrono::microseconds{0});
    INFO("blocking waits: " << turned_on << " turned on, " << turned_off << " turned off");
    CHECK(turned_on < rounds / 5);
    CHECK(turned_off > turned_on);
}

TEST_CASE("poll before park: another thread changes the polling time while the worker runs") {
    // The worker sleeps in the reactor waiting for the client's connection
    // when the client thread sets the time: it polls from its next park on.
    const int polling =
        blocking_waits_serving(std::chrono::microseconds{0}, std::nullopt, a_second_of_polling);
    INFO("blocking waits: " << polling);
    CHECK(polling < rounds / 5);
}

TEST_CASE("poll before park: the time starts at the configured one and is kept within 0 to 1 s") {
    for (const std::string flavor : {"current_thread", "multi_thread"}) {
        INFO(flavor);
        runtime_config config;
        config.flavor = flavor;
        config.workers = flavor == "multi_thread" ? 2 : 1;
        config.poll_before_park = std::chrono::microseconds{7};
        runtime rt(config);
        CHECK(rt.poll_before_park() == std::chrono::microseconds{7});
        // The multi-thread flavor keeps the time (its workers do not poll).
        rt.block_on([&]() -> task<void> {
            CHECK(cx::current().poll_before_park() == std::chrono::microseconds{7});
            cx::current().set_poll_before_park(std::chrono::microseconds{20});
            co_await spawn([](cx c) -> task<void> {
                CHECK(c.poll_before_park() == std::chrono::microseconds{20});
                c.set_poll_before_park(std::chrono::microseconds{5});
                co_return;
            });
        }());
        CHECK(rt.poll_before_park() == std::chrono::microseconds{5});
        rt.set_poll_before_park(std::chrono::microseconds{-3});
        CHECK(rt.poll_before_park() == std::chrono::microseconds{0});
        rt.set_poll_before_park(std::chrono::hours{1});
        CHECK(rt.poll_before_park() == std::chrono::seconds{1});
    }
}

TEST_CASE("poll before park: a timer due while the worker polls fires at its deadline") {
    for (const std::string reactor : {"epoll", "uring"}) {
        INFO(reactor);
        runtime rt(polling_config(reactor));
        const auto slept = rt.block_on([]() -> task<std::chrono::steady_clock::duration> {
            // Registered I/O, so that the worker polls instead of only waiting for its timer.
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const auto start = std::chrono::steady_clock::now();
            co_await sleep(2ms);
            co_return std::chrono::steady_clock::now() - start;
        }());
        CHECK(slept >= 2ms);
        CHECK(slept < 500ms);  // not the second of polling
    }
}

TEST_CASE("poll before park: a wake from another thread ends the polling") {
    for (const std::string reactor : {"epoll", "uring"}) {
        INFO(reactor);
        runtime rt(polling_config(reactor));
        test::manual_event event;
        std::atomic<std::int64_t> fired_at{0};
        const std::int64_t resumed_at = rt.block_on([&]() -> task<std::int64_t> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const std::uint64_t polls_before = rt.metrics().reactor_polls;
            std::thread other([&] {
                while (!event.armed())
                    std::this_thread::yield();
                // Fire once the worker, with nothing to run, polls the reactor.
                while (rt.metrics().reactor_polls < polls_before + 100)
                    std::this_thread::yield();
                fired_at = std::chrono::steady_clock::now().time_since_epoch().count();
                event.fire();
            });
            co_await event.wait();
            const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
            other.join();
            co_return now;
        }());
        CHECK(std::chrono::nanoseconds(resumed_at - fired_at.load()) < 500ms);
    }
}

TEST_CASE("poll before park: on the virtual clock the worker sleeps without polling") {
    // The virtual clock stands still while a task awaits I/O, so a poll
    // bounded by it would never end before the I/O comes.
    runtime_config config = test::config_with_faulty("reactor");
    config.clock = "virtual";
    config.poll_before_park = a_second_of_polling;
    runtime rt(config);
    test::plugin_control& reactor = test::control_of("reactor");
    std::atomic<bool> worker_slept{false};
    std::atomic<bool> connected{false};
    rt.block_on([&]() -> task<void> {
        auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
        const int waits_before = reactor.blocking_waits();
        const std::uint64_t polls_before = rt.metrics().reactor_polls;
        std::thread client([&, port = listener.local_address().port()] {
            // Connect once the worker sleeps in the reactor, or once it has
            // polled far more often than a worker that sleeps at once would.
            while (reactor.blocking_waits() == waits_before &&
                   rt.metrics().reactor_polls < polls_before + 10'000)
                std::this_thread::yield();
            worker_slept = reactor.blocking_waits() != waits_before;
            const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(port);
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            connected = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
            ::close(fd);
        });
        net::tcp_stream accepted = co_await listener.accept();
        client.join();
    }());
    CHECK(connected);
    CHECK(worker_slept);
}
