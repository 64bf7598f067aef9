// A socket destroyed on a thread that does not drive the runtime's worker
// (moved out of block_on, or a parameter of a frame freed there): on the
// current-thread runtime only the driving thread may touch the reactor, so
// the worker deregisters and closes it; the peer sees the end of stream.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
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

/// A blocking client socket connected to 127.0.0.1:`port`, or -1.
int connect_loopback(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    if (fd >= 0) ::close(fd);
    return -1;
}

/// The scheduler state of thread `tid` of this process ('R', 'S', ...).
char thread_state(pid_t tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');  // the name may hold spaces and parentheses
    return close != std::string::npos && close + 2 < all.size() ? all[close + 2] : '?';
}

/// True when `fd` reads as end of stream within 5 seconds.
bool sees_end_of_stream(int fd) {
    pollfd readable{fd, POLLIN, 0};
    char byte = 0;
    return ::poll(&readable, 1, 5000) == 1 && ::read(fd, &byte, 1) == 0;
}

}  // namespace

TEST_CASE("a stream destroyed on a thread that does not drive the worker is closed by it") {
    for (const net_test::setup& setup : net_test::setups) {
        test::run_or_abort_on_deadlock("closing a stream on another thread", [&] {
            INFO(setup.name());  // doctest's context is per thread
            runtime rt(net_test::config_for(setup));
            int client = -1;
            net::tcp_stream server = rt.block_on([&]() -> task<net::tcp_stream> {
                auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
                client = connect_loopback(listener.local_address().port());
                REQUIRE(client >= 0);
                net::tcp_stream accepted = co_await listener.accept();
                REQUIRE(::write(client, "x", 1) == 1);
                char byte = 0;
                CHECK(co_await accepted.read(&byte, 1) == 1);  // live in the reactor now
                co_return accepted;
            }());
            auto [tx, rx] = sync::make_oneshot<bool>();
            std::atomic<pid_t> driver{0};
            // Once this thread drives the worker and sleeps in the reactor (a
            // listener stays registered), another thread destroys the stream.
            std::thread closer([&, doomed = std::move(server), tx = std::move(tx)]() mutable {
                pid_t tid = 0;
                while ((tid = driver.load()) == 0)
                    std::this_thread::yield();
                const auto give_up = std::chrono::steady_clock::now() + 5s;
                while (thread_state(tid) != 'S' && std::chrono::steady_clock::now() < give_up)
                    std::this_thread::yield();
                { auto gone = std::move(doomed); }
                tx.send(sees_end_of_stream(client));
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
