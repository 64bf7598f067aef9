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

/// A task as the driver sees it: a counting waker and a waiter per direction.
/// Declared before the driver, which may hold its waiters when it goes.
struct waiting_task : counting_waker {
    waker handle = make();
    detail::io_waiter reading, writing;
    unsigned poll_ready(detail::io_driver& io, io_token t, interest want) {
        return io.poll_ready(t, want, want == interest::write ? writing : reading, handle);
    }
};

TEST_CASE("io_driver: a second add of one descriptor throws EEXIST and leaves the first working") {
    waiting_task w;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token t = io.add(p.a, interest::read);
    CHECK(error_of([&] { io.add(p.a, interest::write); }) == EEXIST);
    CHECK(error_of([&] { io.add(-1, interest::read); }) == EBADF);
    CHECK(w.poll_ready(io, t, interest::read) == 0);
    p.send_byte();
    CHECK(poll_until(io, [&] { return w.wakes > 0; }));
    io.remove(t);
    io.remove(io.add(p.a, interest::read));  // allowed again once removed
}

TEST_CASE("io_driver: latched bits answer at once - otherwise the task waits and is woken once") {
    waiting_task reader, writer;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token t = io.add(p.a, interest::read_write);
    CHECK(poll_until(io, [&] { return io.latched(t, interest::write) != 0; }));  // idle: writable
    CHECK(reader.poll_ready(io, t, interest::read) == 0);
    CHECK(reader.reading.linked());
    CHECK(reader.poll_ready(io, t, interest::read) == 0);  // still waiting: nothing changes
    CHECK(writer.poll_ready(io, t, interest::write) == ready::writable);
    CHECK_FALSE(writer.writing.linked());
    p.send_byte();
    CHECK(poll_until(io, [&] { return reader.wakes > 0; }));
    io.poll(20ms);
    CHECK(reader.wakes == 1);
    CHECK_FALSE(reader.reading.linked());
    CHECK(reader.poll_ready(io, t, interest::read) == ready::readable);
    io.clear_ready(t, ready::readable);
    CHECK(reader.poll_ready(io, t, interest::read) == 0);
    io.remove(t);
}

TEST_CASE(
    "io_driver: every task waiting for a direction is woken - hang-up wakes both directions") {
    waiting_task first, second, writer;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token t = io.add(p.a, interest::read_write);
    io.poll(0ms);
    io.clear_ready(t, ready::writable);
    CHECK(first.poll_ready(io, t, interest::read) == 0);
    CHECK(second.poll_ready(io, t, interest::read) == 0);
    CHECK(writer.poll_ready(io, t, interest::write) == 0);
    static_cast<readiness_sink&>(io).deliver(t, ready::readable);
    CHECK(first.wakes == 1);
    CHECK(second.wakes == 1);
    CHECK(writer.wakes == 0);
    CHECK(writer.writing.linked());
    io.clear_ready(t, ready::readable);
    CHECK(first.poll_ready(io, t, interest::read) == 0);
    static_cast<readiness_sink&>(io).deliver(t, ready::hangup);
    CHECK(first.wakes == 2);
    CHECK(writer.wakes == 1);
    CHECK(writer.poll_ready(io, t, interest::write) == ready::hangup);
    io.remove(t);
}

TEST_CASE("io_driver: withdraw unlinks one waiter unwoken - the others still wait") {
    waiting_task gone, stays;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token t = io.add(p.a, interest::read);
    CHECK(gone.poll_ready(io, t, interest::read) == 0);
    CHECK(stays.poll_ready(io, t, interest::read) == 0);
    io.withdraw(gone.reading);
    CHECK_FALSE(gone.reading.linked());
    io.withdraw(gone.reading);  // not linked: nothing
    p.send_byte();
    CHECK(poll_until(io, [&] { return stays.wakes > 0; }));
    CHECK(gone.wakes == 0);
    CHECK((io.latched(t, interest::read) & ready::readable) != 0);  // still latched
    io.remove(t);
}

TEST_CASE("io_driver: remove wakes every waiter - its token answers error ever after") {
    waiting_task reader, writer;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token t = io.add(p.a, interest::read_write);
    io.poll(0ms);
    io.clear_ready(t, ready::writable);
    CHECK(reader.poll_ready(io, t, interest::read) == 0);
    CHECK(writer.poll_ready(io, t, interest::write) == 0);
    io.remove(t);
    CHECK(reader.wakes == 1);  // to find its descriptor closed
    CHECK(writer.wakes == 1);
    CHECK_FALSE(reader.reading.linked());
    CHECK_FALSE(writer.writing.linked());
    CHECK(reader.poll_ready(io, t, interest::read) == ready::error);
    CHECK_FALSE(reader.reading.linked());
    io.remove(t);  // stale: ignored
    const io_token again = io.add(p.a, interest::read);
    CHECK(again != t);
    CHECK(error_of([&] { io.modify(t, interest::write); }) == ENOENT);
    io.remove(again);
}

TEST_CASE(
    "io_driver: a delivery for a removed token reaches nobody - not its descriptor's next "
    "registration") {
    waiting_task w;
    detail::io_driver io = epoll_driver();
    socket_pair p;
    const io_token old_token = io.add(p.a, interest::read);
    io.remove(old_token);
    const io_token new_token = io.add(p.a, interest::read);
    CHECK(w.poll_ready(io, new_token, interest::read) == 0);
    static_cast<readiness_sink&>(io).deliver(old_token, ready::readable);
    CHECK(w.wakes == 0);
    CHECK(w.poll_ready(io, new_token, interest::read) == 0);
    io.remove(new_token);
}

TEST_CASE("io_driver over uring: readiness met by cancel() comes with the next poll - at once") {
    waiting_task reader;
    testing::counting_waker recv_waker;
    detail::io_driver io(plugin_loader().create_by_name<reactor>("uring"), "uring");
    auto* completions = static_cast<completion_reactor_v1*>(
        io.backend().query_interface(completion_reactor_v1_name));
    REQUIRE(completions);
    socket_pair watched, other;
    const io_token t = io.add(watched.a, interest::read);
    const io_token o = io.add(other.a, interest::read);
    CHECK(reader.poll_ready(io, t, interest::read) == 0);
    io.poll(0ms);  // the poll for `watched` reaches the kernel
    // A recv on the other socket, cancelled after `watched` became readable:
    // cancel() reaps the readiness on the way, with nobody to deliver it to.
    char buffer[8];
    io_request recv;
    recv.op = io_opcode::recv;
    recv.fd = other.a;
    recv.buffer = buffer;
    recv.length = sizeof buffer;
    recv.flags = MSG_PEEK;  // not served from the reactor's buffers: a request in the kernel
    io_completion done;
    done.on_complete = recv_waker.make();
    completions->submit(recv, done);
    io.poll(0ms);
    watched.send_byte();
    completions->cancel(done);
    CHECK_FALSE(done.pending);
    const auto start = std::chrono::steady_clock::now();
    io.poll(2s);
    CHECK(std::chrono::steady_clock::now() - start < 1s);
    CHECK(reader.wakes == 1);
    io.remove(o);
    io.remove(t);
}
