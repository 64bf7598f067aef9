// A task set dropped while its tasks wait in real socket reads: each read is
// cancelled, each task unwinds and closes its socket, on every reactor and
// both flavors.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <coroutine>
#include <vector>

#include "../support/recorded_diagnostics.hpp"
#include "net_support.hpp"
#include "rtkit/task_set.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

constexpr int readers = 4;

/// Awaits an I/O operation and releases a permit of `waiting` once the task
/// really waits in it (await_suspend said so: the read is armed or submitted).
struct released_when_waiting {
    net::detail::io_operation& op;
    sync::semaphore& waiting;
    bool await_ready() const noexcept { return op.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) {
        if (!op.await_suspend(h)) return false;
        waiting.release(1);
        return true;
    }
    std::size_t await_resume() { return op.await_resume(); }
};

/// Releases a permit when destroyed: the task unwound past it.
struct release_on_exit {
    sync::semaphore& done;
    ~release_on_exit() { done.release(1); }
};

/// Reads its own stream until it is cancelled. The stream is a local (a
/// parameter would live as long as the frame), destroyed before `exit`.
task<std::size_t> read_until_cancelled(net::tcp_stream s, sync::semaphore& waiting,
                                       sync::semaphore& unwound) {
    release_on_exit exit{unwound};
    net::tcp_stream mine = std::move(s);
    char buffer[64];
    net::detail::io_operation read = mine.read(buffer, sizeof buffer);
    co_return co_await released_when_waiting{read, waiting};
}

/// True once the peer of `fd` has closed its end: a read gives 0. Drives the
/// runtime meanwhile (a close may be carried out on its next turn), for at
/// most 5 s of its clock.
task<bool> sees_end_of_stream(int fd) {
    const instant give_up = now() + 5s;
    for (;;) {
        char byte = 0;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
        if (n == 0) co_return true;
        if (n > 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || now() > give_up) co_return false;
        co_await yield_now();
    }
}

}  // namespace

TEST_CASE(
    "task set: dropped while its tasks wait in socket reads - each unwinds and closes its socket") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        test::recorded_diagnostics diagnostics;
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
            const std::uint16_t port = listener.local_address().port();
            std::vector<int> clients;
            sync::semaphore waiting(0), unwound(0);
            {
                task_set<std::size_t> set;
                for (int i = 0; i < readers; ++i) {
                    clients.push_back(net_test::connect_loopback(port));
                    REQUIRE(clients.back() >= 0);
                    set.spawn(read_until_cancelled(co_await listener.accept(), waiting, unwound));
                }
                (void)co_await waiting.acquire(readers);  // every read is in flight
                CHECK(set.size() == readers);
            }  // the set goes: every read is cancelled
            (void)co_await unwound.acquire(readers);
            for (int fd : clients) {
                CHECK(co_await sees_end_of_stream(fd));
                ::close(fd);
            }
        }());
        rt.shutdown();
        CHECK(diagnostics.count() == 0);  // cancelled tasks are no failures
    }
}
