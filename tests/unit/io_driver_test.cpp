// The kernel's side of the reactor (detail::io_driver) over the real epoll
// plugin: registrations, latched readiness and armed wakers are the kernel's,
// whatever the backend.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>

#include "../../conformance/src/counting_waker.hpp"
#include "rtkit/detail/io_driver.hpp"
#include "rtkit/plugin_loader.hpp"

using namespace rtkit;
using namespace std::chrono_literals;
using testing::counting_waker;

namespace {

detail::io_driver epoll_driver() {
    return detail::io_driver(plugin_loader().create_by_name<reactor>("epoll"), "epoll");
}

/// A connected pair of non-blocking sockets, closed at the end.
struct socket_pair {
    int a = -1, b = -1;
    socket_pair() {
        int fds[2];
        REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
        a = fds[0];
        b = fds[1];
    }
    ~socket_pair() {
        ::close(a);
        ::close(b);
    }
    void send_byte() const { REQUIRE(::write(b, "x", 1) == 1); }
};

template <class F>
int error_of(F f) {
    try {
        f();
    } catch (const std::system_error& e) {
        return e.code().value();
    }
    return 0;
}

/// Polls until `done()`, for at most 2 s.
template <class Done>
bool poll_until(detail::io_driver& io, Done done) {
    const auto end = std::chrono::steady_clock::now() + 2s;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        io.poll(20ms);
    }
    return true;
}

}  // namespace

TEST_CASE("io_driver: a second add of one descriptor throws EEXIST and leaves the first working") {
    detail::io_driver io = epoll_driver();
    socket_pair p;
    counting_waker w;
    const io_token t = io.add(p.a, interest::read);
    CHECK(error_of([&] { io.add(p.a, interest::write); }) == EEXIST);
    CHECK(error_of([&] { io.add(-1, interest::read); }) == EBADF);
    CHECK(io.poll_ready(t, interest::read, w.make()) == 0);
    p.send_byte();
    CHECK(poll_until(io, [&] { return w.wakes > 0; }));
    io.remove(t);
    io.remove(io.add(p.a, interest::read));  // allowed again once removed
}

TEST_CASE(
    "io_driver: remove drops armed wakers without a wake - its token answers error ever after") {
    detail::io_driver io = epoll_driver();
    socket_pair p;
    counting_waker w;
    const io_token t = io.add(p.a, interest::read);
    CHECK(io.poll_ready(t, interest::read, w.make()) == 0);
    io.remove(t);
    CHECK(w.live == 0);
    CHECK(w.wakes == 0);
    CHECK(io.poll_ready(t, interest::read, w.make()) == ready::error);
    CHECK(w.live == 0);
    io.remove(t);  // stale: ignored
    const io_token again = io.add(p.a, interest::read);
    CHECK(again != t);
    CHECK(error_of([&] { io.modify(t, interest::write); }) == ENOENT);
    io.remove(again);
}

TEST_CASE(
    "io_driver: a delivery for a removed token reaches nobody - not its descriptor's next "
    "registration") {
    detail::io_driver io = epoll_driver();
    socket_pair p;
    counting_waker old_waker, new_waker;
    const io_token old_token = io.add(p.a, interest::read);
    io.remove(old_token);
    const io_token new_token = io.add(p.a, interest::read);
    CHECK(io.poll_ready(new_token, interest::read, new_waker.make()) == 0);
    static_cast<readiness_sink&>(io).deliver(old_token, ready::readable);
    CHECK(new_waker.wakes == 0);
    CHECK(io.poll_ready(new_token, interest::read, new_waker.make()) == 0);
    io.remove(new_token);
}

TEST_CASE("io_driver: a waker armed twice fires once - a replaced waker is dropped unwoken") {
    detail::io_driver io = epoll_driver();
    socket_pair p;
    counting_waker same, first, second;
    const io_token t = io.add(p.a, interest::read);
    CHECK(io.poll_ready(t, interest::read, same.make()) == 0);
    CHECK(io.poll_ready(t, interest::read, same.make()) == 0);
    p.send_byte();
    CHECK(poll_until(io, [&] { return same.wakes > 0; }));
    io.poll(20ms);
    CHECK(same.wakes == 1);
    char byte;
    CHECK(::read(p.a, &byte, 1) == 1);
    io.clear_ready(t, ready::readable);
    CHECK(io.poll_ready(t, interest::read, first.make()) == 0);
    CHECK(io.poll_ready(t, interest::read, second.make()) == 0);
    CHECK(first.live == 0);
    p.send_byte();
    CHECK(poll_until(io, [&] { return second.wakes > 0; }));
    CHECK(first.wakes == 0);
    io.remove(t);
}

TEST_CASE("io_driver: withdraw drops a waiter's waker without waking it") {
    detail::io_driver io = epoll_driver();
    socket_pair p;
    counting_waker w;
    const io_token t = io.add(p.a, interest::read);
    CHECK(io.poll_ready(t, interest::read, w.make()) == 0);
    io.withdraw(t, interest::read);
    CHECK(w.live == 0);
    p.send_byte();
    io.poll(20ms);
    CHECK(w.wakes == 0);
    CHECK((io.poll_ready(t, interest::read, w.make()) & ready::readable) != 0);  // still latched
    io.remove(t);
}
