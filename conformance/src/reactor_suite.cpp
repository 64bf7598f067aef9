// The reactor conformance suite: real pipes, socketpairs and threads; and,
// for a reactor that offers it, the completion interface on real sockets.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "counting_waker.hpp"
#include "rtkit/completion_reactor.hpp"
#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {
namespace {

using namespace std::chrono_literals;
using detail::require;
using detail::skip;
using testing::counting_waker;
using clock = std::chrono::steady_clock;

/// Two connected descriptors, non-blocking, closed on destruction.
struct fd_pair {
    int a = -1;  ///< the end under test (read end of a pipe)
    int b = -1;  ///< the peer (write end of a pipe)

    static fd_pair pipe_pair() {
        int fds[2];
        if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
            throw std::system_error(errno, std::generic_category(), "pipe2");
        return fd_pair{fds[0], fds[1]};
    }
    static fd_pair socket_pair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) < 0)
            throw std::system_error(errno, std::generic_category(), "socketpair");
        return fd_pair{fds[0], fds[1]};
    }
    fd_pair(int x, int y) : a(x), b(y) {}
    fd_pair(fd_pair&& o) noexcept : a(std::exchange(o.a, -1)), b(std::exchange(o.b, -1)) {}
    fd_pair& operator=(fd_pair&&) = delete;
    ~fd_pair() {
        close_a();
        close_b();
    }
    void close_a() {
        if (a >= 0) ::close(std::exchange(a, -1));
    }
    void close_b() {
        if (b >= 0) ::close(std::exchange(b, -1));
    }
};

void write_text(int fd, const std::string& text) {
    require(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()),
            "could not write to the test descriptor");
}

void write_byte(int fd) {
    write_text(fd, "x");
}

void drain(int fd) {
    char buf[4096];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
}

/// Polls (short slices) until `done()` or `limit` passes; true when done.
template <class Done>
bool poll_until(reactor& r, Done done, clock::duration limit = 2s) {
    const auto end = clock::now() + limit;
    while (!done()) {
        if (clock::now() >= end) return false;
        r.poll(20ms);
    }
    return true;
}

std::string ms_text(clock::duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(d).count() /
                          1000.0) +
           " ms";
}

void register_and_deregister(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    fd_pair p = fd_pair::pipe_pair();
    const io_token t = r->add(p.a, interest::read);
    require(r->poll_ready(t, interest::read, w.make()) == 0,
            "a fresh registration of an empty pipe reported readiness");
    r->remove(t);
    require(w.live == 0, "remove() kept (or leaked) the armed waker");
    require(w.wakes == 0, "remove() woke the armed waker; it must drop it without a wake");
    require(r->poll_ready(t, interest::read, w.make()) == ready::error,
            "poll_ready on a removed token must return ready::error");
    r->remove(t);  // a stale token is ignored
    require(w.live == 0, "poll_ready on a stale token kept the waker");
    const io_token again = r->add(p.a, interest::read);  // deregistration was real
    require(again != t, "a new registration reused the removed registration's token");
    r->remove(again);
    bool threw = false;
    try {
        r->add(-1, interest::read);
    } catch (const std::system_error&) {
        threw = true;
    }
    require(threw, "add(-1) must throw std::system_error");
}

void duplicate_add_refused(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read);
    int error = 0;
    try {
        r->add(p.a, interest::write);
    } catch (const std::system_error& e) {
        error = e.code().value();
    }
    require(error == EEXIST,
            "a second add() of a registered descriptor must throw "
            "std::system_error(EEXIST), got " +
                (error ? std::to_string(error) : std::string("no error")));
    // The refused add left the first registration working.
    require(r->poll_ready(t, interest::read, w.make()) == 0, "empty socket reported readable");
    write_byte(p.b);
    require(poll_until(*r, [&] { return w.wakes > 0; }),
            "after a refused second add() the first registration was not woken by a write");
    r->remove(t);
    const io_token again = r->add(p.a, interest::read);  // allowed once removed
    r->remove(again);
}

void read_readiness(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read);
    require(r->poll_ready(t, interest::read, w.make()) == 0, "empty socket reported readable");
    r->poll(0ms);
    require(w.wakes == 0, "the read waker fired with nothing to read");
    write_byte(p.b);
    require(poll_until(*r, [&] { return w.wakes > 0; }), "no read wake within 2 s of a write");
    require(w.wakes == 1, "the read waker fired more than once");
    require(r->poll_ready(t, interest::read, w.make()) & ready::readable,
            "poll_ready(read) after a read wake did not report readable");
    drain(p.a);
    r->clear_ready(t, ready::readable);
    require(r->poll_ready(t, interest::read, w.make()) == 0,
            "readable was still reported after clear_ready");
    write_byte(p.b);
    require(poll_until(*r, [&] { return w.wakes > 1; }),
            "no second read wake after clear_ready and a new write");
    r->remove(t);
}

void write_readiness(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::write);
    if (r->poll_ready(t, interest::write, w.make()) == 0)
        require(poll_until(*r, [&] { return w.wakes > 0; }),
                "an idle socket was never reported writable");
    require(r->poll_ready(t, interest::write, w.make()) & ready::writable,
            "poll_ready(write) does not report a writable socket");
    // Fill the socket until the kernel refuses, then expect writability back
    // only once the peer drains it.
    char block[4096] = {};
    while (::write(p.a, block, sizeof block) > 0) {
    }
    require(errno == EAGAIN || errno == EWOULDBLOCK, "filling the socket failed");
    r->clear_ready(t, ready::writable);
    const int before = w.wakes;
    require(r->poll_ready(t, interest::write, w.make()) == 0,
            "a full socket was reported writable after clear_ready");
    r->poll(0ms);
    require(w.wakes == before, "the write waker fired while the socket was full");
    drain(p.b);
    require(poll_until(*r, [&] { return w.wakes > before; }),
            "no write wake after the peer drained a full socket");
    r->remove(t);
}

void interest_changes(const detail::factory<reactor>& make) {
    counting_waker reads, writes;
    auto r = make();
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read);
    r->poll(0ms);  // the socket is writable already; the reactor may latch that now
    r->modify(t, interest::read_write);
    if (r->poll_ready(t, interest::write, writes.make()) == 0)
        require(poll_until(*r, [&] { return writes.wakes > 0; }),
                "after modify(read_write) a writable socket was never reported writable");
    require(r->poll_ready(t, interest::write, writes.make()) & ready::writable,
            "after modify(read_write) poll_ready(write) does not report writable");
    r->modify(t, interest::read);
    require(r->poll_ready(t, interest::read, reads.make()) == 0, "empty socket reported readable");
    write_byte(p.b);
    require(poll_until(*r, [&] { return reads.wakes > 0; }),
            "after modify(read) a write by the peer did not wake the reader");
    require(r->poll_ready(t, interest::read, reads.make()) & ready::readable,
            "after modify(read) poll_ready(read) does not report readable");
    r->remove(t);
}

void hangup_reported(const detail::factory<reactor>& make) {
    counting_waker w, pw;
    auto r = make();
    fd_pair s = fd_pair::socket_pair();
    const io_token t = r->add(s.a, interest::read);
    require(r->poll_ready(t, interest::read, w.make()) == 0, "empty socket reported readiness");
    s.close_b();
    require(poll_until(*r, [&] { return w.wakes > 0; }),
            "closing the peer of a socket did not wake the reader");
    require(r->poll_ready(t, interest::read, w.make()) & ready::hangup,
            "closing the peer of a socket was not reported as ready::hangup");
    r->remove(t);

    fd_pair p = fd_pair::pipe_pair();
    const io_token tp = r->add(p.a, interest::read);
    require(r->poll_ready(tp, interest::read, pw.make()) == 0, "empty pipe reported readiness");
    p.close_b();
    require(poll_until(*r, [&] { return pw.wakes > 0; }),
            "closing a pipe's write end did not wake the reader");
    require(r->poll_ready(tp, interest::read, pw.make()) & ready::hangup,
            "closing a pipe's write end was not reported as ready::hangup to the reader");
    r->remove(tp);
}

void error_reported(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    fd_pair p = fd_pair::pipe_pair();
    // A pipe whose read end is gone has an error pending on its write end.
    const io_token t = r->add(p.b, interest::write);
    r->poll(0ms);
    r->clear_ready(t, ready::writable);
    r->poll_ready(t, interest::write, w.make());
    p.close_a();
    const bool reported = poll_until(
        *r, [&] { return (r->poll_ready(t, interest::write, w.make()) & ready::error) != 0; });
    require(reported, "a pipe write end without a reader was not reported as ready::error");
    require(w.wakes > 0, "the error did not wake the armed writer");
    r->remove(t);
}

void wake_from_another_thread(const detail::factory<reactor>& make) {
    // A safety net: if wake() does not work, this pipe ends the blocking poll
    // after 5 s so that the case fails instead of hanging.
    counting_waker net;
    fd_pair guard = fd_pair::pipe_pair();
    auto r = make();
    const io_token t = r->add(guard.a, interest::read);
    require(r->poll_ready(t, interest::read, net.make()) == 0, "empty pipe reported readable");
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    // When the wake is sent; poll(-1) must not return before it.
    std::atomic<clock::rep> wake_sent{0};
    std::thread waker_thread([&] {
        std::this_thread::sleep_for(50ms);
        wake_sent.store(clock::now().time_since_epoch().count());
        r->wake();
    });
    std::thread fallback([&] {
        std::unique_lock lock(mutex);
        if (done_cv.wait_for(lock, 5s, [&] { return done; })) return;
        const char c = 'x';
        [[maybe_unused]] const auto n = ::write(guard.b, &c, 1);  // no throw on this thread
    });
    const auto start = clock::now();
    r->poll(rtkit::duration(-1));
    const auto returned = clock::now();
    const auto waited = returned - start;
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    done_cv.notify_one();
    waker_thread.join();
    fallback.join();
    r->remove(t);
    require(waited < 4s, "wake() from another thread did not interrupt poll(-1) (waited " +
                             ms_text(waited) + ")");
    const clock::rep sent = wake_sent.load();
    require(sent != 0 && returned.time_since_epoch().count() >= sent,
            "poll(-1) returned after " + ms_text(waited) +
                " although nothing had happened yet (no wake sent)");
    // A wake before a poll makes that poll return at once.
    r->wake();
    const auto start2 = clock::now();
    r->poll(5s);
    require(clock::now() - start2 < 2s, "a wake() before poll(5s) did not make it return at once");
}

void poll_honours_timeout(const detail::factory<reactor>& make) {
    auto r = make();
    for (const rtkit::duration timeout : {rtkit::duration(50ms), rtkit::duration(1500us)}) {
        const auto start = clock::now();
        r->poll(timeout);
        const auto waited = clock::now() - start;
        require(waited >= timeout - 100us,
                "poll(" + ms_text(timeout) + ") returned after only " + ms_text(waited));
        require(waited < timeout + 2s, "poll(" + ms_text(timeout) + ") took " + ms_text(waited));
    }
    const auto start = clock::now();
    r->poll(0ms);
    require(clock::now() - start < 500ms, "poll(0) blocked");
}

void ten_thousand_descriptors(const detail::factory<reactor>& make) {
    constexpr int pipes = 5000;  // both ends registered: 10,000 descriptors
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    const rlim_t needed = 2 * pipes + 256;
    if (limit.rlim_cur < needed) {
        if (limit.rlim_max < needed)
            skip("RLIMIT_NOFILE hard limit is " + std::to_string(limit.rlim_max) + ", below the " +
                 std::to_string(needed) + " descriptors this case needs");
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) < 0)
            skip("could not raise RLIMIT_NOFILE to " + std::to_string(needed));
    }
    std::deque<counting_waker> wakers(pipes);
    auto r = make();
    std::deque<fd_pair> fds;
    std::vector<io_token> read_tokens, write_tokens;
    for (int i = 0; i < pipes; ++i) {
        fds.push_back(fd_pair::pipe_pair());
        read_tokens.push_back(r->add(fds.back().a, interest::read));
        write_tokens.push_back(r->add(fds.back().b, interest::write));
        require(r->poll_ready(read_tokens.back(), interest::read, wakers[i].make()) == 0,
                "an empty pipe reported readable");
    }
    int expected = 0;
    for (int i = 0; i < pipes; i += 50, ++expected)
        write_byte(fds[i].b);
    int woken = 0;
    poll_until(
        *r,
        [&] {
            woken = 0;
            for (int i = 0; i < pipes; i += 50)
                woken += wakers[i].wakes > 0;
            return woken == expected;
        },
        5s);
    require(woken == expected, "only " + std::to_string(woken) + " of " + std::to_string(expected) +
                                   " written pipes woke their reader among 10,000 descriptors");
    for (int i = 0; i < pipes; ++i)
        if (i % 50 != 0)
            require(wakers[i].wakes == 0,
                    "pipe " + std::to_string(i) + " was never written but its reader was woken");
    for (int i = 0; i < pipes; ++i) {
        r->remove(read_tokens[i]);
        r->remove(write_tokens[i]);
    }
}

void reused_descriptor_gets_no_stale_event(const detail::factory<reactor>& make) {
    counting_waker old_waker, new_waker;
    auto r = make();
    fd_pair first = fd_pair::pipe_pair();
    const int number = first.a;
    const io_token old_token = r->add(first.a, interest::read);
    require(r->poll_ready(old_token, interest::read, old_waker.make()) == 0,
            "an empty pipe reported readable");
    write_byte(first.b);  // ready in the kernel; the reactor has not fetched it yet
    r->remove(old_token);
    first.close_a();
    first.close_b();

    fd_pair second = fd_pair::pipe_pair();
    if (second.a != number) {  // make the new read end reuse the old number
        require(::dup3(second.a, number, O_CLOEXEC) == number, "dup3 failed");
        ::close(second.a);
        second.a = number;
    }
    const io_token new_token = r->add(second.a, interest::read);
    require(new_token != old_token, "a reused descriptor got the old registration's token");
    require(r->poll_ready(new_token, interest::read, new_waker.make()) == 0,
            "the new registration saw the old descriptor's readiness before any poll");
    r->poll(50ms);
    require(old_waker.wakes == 0, "the removed registration's waker fired");
    require(old_waker.live == 0, "the removed registration's waker was not dropped");
    require(new_waker.wakes == 0, "the new registration was woken by the old descriptor's event");
    require(r->poll_ready(new_token, interest::read, new_waker.make()) == 0,
            "the new registration reports the old descriptor's readiness");
    require(r->poll_ready(old_token, interest::read, old_waker.make()) == ready::error,
            "the old token still answers after remove()");
    write_byte(second.b);
    require(poll_until(*r, [&] { return new_waker.wakes > 0; }),
            "the new registration was not woken by its own data");
    require(old_waker.wakes == 0, "the old waker fired for the new descriptor's data");
    r->remove(new_token);
}

void many_wakes_coalesce(const detail::factory<reactor>& make) {
    auto r = make();
    for (int i = 0; i < 1000; ++i)
        r->wake();
    auto start = clock::now();
    r->poll(0ms);
    require(clock::now() - start < 500ms, "poll(0) after 1000 wakes did not return promptly");
    start = clock::now();
    r->poll(50ms);
    const auto waited = clock::now() - start;
    require(waited >= 49ms,
            "1000 wakes did not coalesce: the poll after the one that consumed "
            "them returned after " +
                ms_text(waited) + " instead of blocking ~50 ms");
}

void waker_armed_twice_fires_once(const detail::factory<reactor>& make) {
    counting_waker same, first, second;
    auto r = make();
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read);
    require(r->poll_ready(t, interest::read, same.make()) == 0, "empty socket reported readable");
    require(r->poll_ready(t, interest::read, same.make()) == 0, "empty socket reported readable");
    write_byte(p.b);
    require(poll_until(*r, [&] { return same.wakes > 0; }), "no read wake after a write");
    r->poll(20ms);
    require(same.wakes == 1, "a waker armed twice fired " + std::to_string(same.wakes) + " times");
    drain(p.a);
    r->clear_ready(t, ready::readable);
    require(r->poll_ready(t, interest::read, first.make()) == 0, "drained socket is readable");
    require(r->poll_ready(t, interest::read, second.make()) == 0, "drained socket is readable");
    require(first.live == 0, "arming a second waker did not drop the replaced one");
    write_byte(p.b);
    require(poll_until(*r, [&] { return second.wakes > 0; }), "the replacing waker was not woken");
    require(first.wakes == 0, "the replaced waker was woken");
    r->remove(t);
}

// The completion interface (rtkit.completion.v1), for reactors that offer it.

completion_reactor_v1& completions_of(reactor& r) {
    auto* c = static_cast<completion_reactor_v1*>(r.query_interface(completion_reactor_v1_name));
    if (!c) skip("the reactor offers no completion interface (rtkit.completion.v1)");
    return *c;
}

io_request request_for(io_opcode op, int fd, void* buffer, std::size_t length) {
    io_request request;
    request.op = op;
    request.fd = fd;
    request.buffer = buffer;
    request.length = length;
    return request;
}

void completion_recv_and_send(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    completion_reactor_v1& c = completions_of(*r);
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read_write);  // as the net layer registers
    char got[16] = {};
    io_completion done;
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), done);
    require(done.pending, "a recv with nothing to read completed inside submit()");
    r->poll(20ms);
    require(done.pending && w.wakes == 0, "a recv completed with nothing to read");
    write_text(p.b, "hello");
    require(poll_until(*r, [&] { return !done.pending; }), "a recv did not complete after a write");
    require(done.result == 5 && std::string(got, 5) == "hello",
            "a recv completed with " + std::to_string(done.result) + " instead of 5 bytes");
    require(w.wakes == 1 && w.live == 0, "a completion must wake its waker exactly once");

    // Bytes that came before the recv: completed inside submit() (then without a
    // wake) or by a later poll(), never lost.
    write_text(p.b, "again");
    r->poll(20ms);
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), done);
    if (!done.pending) require(w.wakes == 1, "a recv completed inside submit() woke its waker");
    require(poll_until(*r, [&] { return !done.pending; }),
            "a recv of waiting bytes never completed");
    require(done.result == 5 && std::string(got, 5) == "again",
            "a recv of waiting bytes completed with " + std::to_string(done.result));
    done.on_complete.reset();

    char text[] = "world";
    io_completion sent;
    c.submit(request_for(io_opcode::send, p.a, text, 5), sent);
    require(poll_until(*r, [&] { return !sent.pending; }), "a send did not complete");
    require(sent.result == 5, "a send completed with " + std::to_string(sent.result));
    char echoed[8] = {};
    require(::read(p.b, echoed, sizeof echoed) == 5 && std::string(echoed, 5) == "world",
            "the peer did not receive what the send sent");
    r->remove(t);
}

void completion_cancel_leaves_nothing(const detail::factory<reactor>& make) {
    counting_waker w;
    auto r = make();
    completion_reactor_v1& c = completions_of(*r);
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r->add(p.a, interest::read_write);
    char lost[16] = {};
    io_completion done;
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, lost, sizeof lost), done);
    r->poll(0ms);  // the recv reaches the kernel
    c.cancel(done);
    require(!done.pending, "cancel() returned with the operation still pending");
    require(done.result == -ECANCELED,
            "a cancelled recv with nothing to read ended with " + std::to_string(done.result));
    require(w.wakes == 0 && w.live == 0, "cancel() must drop the waker without a wake");
    write_text(p.b, "later");
    r->poll(50ms);
    require(done.result == -ECANCELED && lost[0] == 0,
            "the cancelled recv was completed (or its buffer written) after cancel()");
    char got[16] = {};
    io_completion next;
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), next);
    require(poll_until(*r, [&] { return !next.pending; }),
            "the recv after a cancel never completed");
    require(next.result == 5 && std::string(got, 5) == "later",
            "the cancelled recv consumed bytes meant for the next one");
    r->remove(t);
}

void completion_accept_and_connect(const detail::factory<reactor>& make) {
    auto r = make();
    completion_reactor_v1& c = completions_of(*r);
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    require(listener >= 0 && client >= 0, "could not create TCP sockets");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    require(::bind(listener, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
                ::listen(listener, 4) == 0 &&
                ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) == 0,
            "could not listen on 127.0.0.1");
    const io_token lt = r->add(listener, interest::read);
    const io_token ct = r->add(client, interest::read_write);
    sockaddr_in peer{};
    socklen_t peer_size = sizeof peer;
    io_request accept = request_for(io_opcode::accept, listener, nullptr, 0);
    accept.address = reinterpret_cast<sockaddr*>(&peer);
    accept.address_length = &peer_size;
    accept.flags = SOCK_NONBLOCK | SOCK_CLOEXEC;
    io_request connect = request_for(io_opcode::connect, client, nullptr, 0);
    connect.address = reinterpret_cast<sockaddr*>(&address);
    connect.address_size = size;
    io_completion accepted, connected;
    c.submit(accept, accepted);
    c.submit(connect, connected);
    const bool both = poll_until(*r, [&] { return !accepted.pending && !connected.pending; });
    // A wrong reactor may report 0-2 as "accepted": never close this process's stdio.
    if (!accepted.pending && accepted.result > STDERR_FILENO) ::close(accepted.result);
    r->remove(ct);
    r->remove(lt);
    ::close(client);
    ::close(listener);
    require(both, "accept and connect did not both complete");
    require(accepted.result >= 0, "accept completed with " + std::to_string(accepted.result));
    require(connected.result == 0, "connect completed with " + std::to_string(connected.result));
    require(peer_size == sizeof peer && peer.sin_family == AF_INET,
            "accept did not fill in the peer's address");
}

}  // namespace

namespace detail {

const std::vector<test_case<reactor>>& reactor_cases() {
    static const std::vector<test_case<reactor>> cases{
        {"register_and_deregister", &register_and_deregister},
        {"duplicate_add_refused", &duplicate_add_refused},
        {"read_readiness", &read_readiness},
        {"write_readiness", &write_readiness},
        {"interest_changes", &interest_changes},
        {"hangup_reported", &hangup_reported},
        {"error_reported", &error_reported},
        {"wake_from_another_thread", &wake_from_another_thread},
        {"poll_honours_timeout", &poll_honours_timeout},
        {"ten_thousand_descriptors", &ten_thousand_descriptors},
        {"reused_descriptor_gets_no_stale_event", &reused_descriptor_gets_no_stale_event},
        {"many_wakes_coalesce", &many_wakes_coalesce},
        {"waker_armed_twice_fires_once", &waker_armed_twice_fires_once},
        {"completion_recv_and_send", &completion_recv_and_send},
        {"completion_cancel_leaves_nothing", &completion_cancel_leaves_nothing},
        {"completion_accept_and_connect", &completion_accept_and_connect},
    };
    return cases;
}

}  // namespace detail

report run_reactor_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<reactor>(file, options, detail::reactor_cases());
}

}  // namespace rtkit::conformance
