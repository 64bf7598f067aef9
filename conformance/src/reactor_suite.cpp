// The reactor conformance suite: real pipes, socketpairs, threads and
// signals, the backend driven through the kernel's own side of it
// (rtkit::detail::io_driver, which latches readiness and wakes waiting tasks
// as a runtime does); and, for a reactor that offers it, the completion
// interface on real sockets. Each case checks one rule of rtkit/reactor.hpp
// and names it when it fails; a case whose rule is broken fails within about
// half a second.
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <deque>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "counting_waker.hpp"
#include "rtkit/completion_reactor.hpp"
#include "rtkit/conformance/conformance.hpp"
#include "rtkit/detail/io_driver.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {
namespace {

using namespace std::chrono_literals;
using detail::require;
using detail::skip;
using rtkit::detail::io_driver;
using rtkit::detail::io_waiter;
using clock = std::chrono::steady_clock;

/// How long a case waits for something a working reactor does at once.
constexpr clock::duration prompt = 400ms;

/// A task as the kernel's side sees it: it waits for readiness through one
/// io_waiter per direction and counts its wakes (testing::counting_waker).
/// Declare it before the io_driver, which may still hold its waiters when
/// it goes.
struct waiting_task : testing::counting_waker {
    rtkit::waker handle = make();  ///< the waiters borrow it
    io_waiter reading, writing;

    /// io_driver::poll_ready for `want` (read or write): the latched
    /// readiness, or 0 once this task waits for it.
    unsigned poll_ready(io_driver& r, io_token t, interest want) {
        return r.poll_ready(t, want, want == interest::write ? writing : reading, handle);
    }
};

/// Fails the case with `what` when `ok` is false, naming the broken rule.
void require_rule(bool ok, const std::string& rule, const std::string& what) {
    require(ok, "rule '" + rule + "' broken: " + what);
}

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

/// Writes to `fd` until the kernel refuses: its send buffer is full.
void fill(int fd) {
    char block[4096] = {};
    while (::write(fd, block, sizeof block) > 0) {
    }
    require(errno == EAGAIN || errno == EWOULDBLOCK, "filling the socket failed");
}

void drain(int fd) {
    char buf[4096];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
}

/// Polls (short slices) until `done()` or `limit` passes; true when done.
template <class Done>
bool poll_until(io_driver& r, Done done, clock::duration limit = prompt) {
    const auto end = clock::now() + limit;
    while (!done()) {
        if (clock::now() >= end) return false;
        r.poll(20ms);
    }
    return true;
}

/// "12.3 ms"
std::string ms_text(clock::duration d) {
    const auto tenths = std::chrono::duration_cast<std::chrono::microseconds>(d).count() / 100;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " ms";
}

/// The errno of what `f` threw as std::system_error, or 0.
template <class F>
int error_of(F f) {
    try {
        f();
    } catch (const std::system_error& e) {
        return e.code().value();
    }
    return 0;
}

void add_refuses_a_closed_descriptor(const detail::factory<reactor>& make) {
    const std::string rule = "add() of a descriptor that is not open throws EBADF";
    io_driver r(make());
    int closed = -1;
    {
        fd_pair p = fd_pair::pipe_pair();
        closed = p.a;
    }  // both ends closed: the number is free, and nothing opens it before the add
    const int error = error_of([&] { r.add(closed, interest::read); });
    require_rule(error == EBADF, rule,
                 "add(" + std::to_string(closed) + ") of a closed descriptor " +
                     (error ? "threw errno " + std::to_string(error) : std::string("succeeded")));
    // The refused add left nothing behind: the number registers once open again.
    fd_pair p = fd_pair::pipe_pair();
    const io_token t = r.add(p.a, interest::read);
    r.remove(t);
}

void read_readiness(const detail::factory<reactor>& make) {
    const std::string rule = "readable is delivered when data arrives";
    waiting_task w;
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read);
    require_rule(w.poll_ready(r, t, interest::read) == 0, rule,
                 "an empty socket was reported readable");
    r.poll(0ms);
    require_rule(w.wakes == 0, rule, "the read waker fired with nothing to read");
    write_byte(p.b);
    require_rule(poll_until(r, [&] { return w.wakes > 0; }), rule,
                 "no read wake within " + ms_text(prompt) + " of a write");
    require_rule(w.wakes == 1, rule, "the read waker fired more than once");
    require_rule(w.poll_ready(r, t, interest::read) & ready::readable, rule,
                 "what woke the reader was not readable");
    drain(p.a);
    r.clear_ready(t, ready::readable);
    require_rule(w.poll_ready(r, t, interest::read) == 0, rule,
                 "a drained socket was delivered readable again");
    write_byte(p.b);
    require_rule(poll_until(r, [&] { return w.wakes > 1; }), rule,
                 "no read wake for new data after the first was consumed");
    r.remove(t);
}

void write_readiness(const detail::factory<reactor>& make) {
    const std::string rule = "writable is delivered when a write would not block";
    waiting_task w;
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::write);
    if (w.poll_ready(r, t, interest::write) == 0)
        require_rule(poll_until(r, [&] { return w.wakes > 0; }), rule,
                     "an idle socket was never delivered writable");
    require_rule(w.poll_ready(r, t, interest::write) & ready::writable, rule,
                 "an idle socket is not writable");
    // Fill the socket until the kernel refuses, then expect writability back
    // only once the peer drains it.
    fill(p.a);
    r.clear_ready(t, ready::writable);
    const int before = w.wakes;
    require_rule(w.poll_ready(r, t, interest::write) == 0, rule,
                 "a full socket was writable after clear_ready");
    r.poll(0ms);
    require_rule(w.wakes == before, rule, "the write waker fired while the socket was full");
    drain(p.b);
    require_rule(poll_until(r, [&] { return w.wakes > before; }), rule,
                 "no write wake after the peer drained a full socket");
    r.remove(t);
}

void interest_changes(const detail::factory<reactor>& make) {
    const std::string rule = "a direction is delivered once the kernel waits for it";
    waiting_task reads, writes;
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    // Registered for reading; the kernel then waits to write all the same.
    const io_token t = r.add(p.a, interest::read);
    r.poll(0ms);  // the socket is writable already; the reactor may deliver that now
    if (writes.poll_ready(r, t, interest::write) == 0)
        require_rule(poll_until(r, [&] { return writes.wakes > 0; }), rule,
                     "a writable socket registered for reading was never delivered writable "
                     "once the kernel waited to write");
    require_rule(reads.poll_ready(r, t, interest::read) == 0, rule,
                 "an empty socket was delivered readable");
    write_byte(p.b);
    require_rule(poll_until(r, [&] { return reads.wakes > 0; }), rule,
                 "a write by the peer did not wake the reader");
    r.remove(t);
}

void hangup_reported(const detail::factory<reactor>& make) {
    const std::string rule = "the peer's hang-up is delivered as hangup";
    waiting_task w, pw;
    io_driver r(make());
    fd_pair s = fd_pair::socket_pair();
    const io_token t = r.add(s.a, interest::read);
    require(w.poll_ready(r, t, interest::read) == 0, "an empty socket reported readiness");
    s.close_b();
    require_rule(poll_until(r, [&] { return w.wakes > 0; }), rule,
                 "closing the peer of a socket did not wake the reader");
    require_rule(w.poll_ready(r, t, interest::read) & ready::hangup, rule,
                 "closing the peer of a socket was not delivered as ready::hangup");
    r.remove(t);
    fd_pair p = fd_pair::pipe_pair();
    const io_token tp = r.add(p.a, interest::read);
    require(pw.poll_ready(r, tp, interest::read) == 0, "an empty pipe reported readiness");
    p.close_b();
    require_rule(poll_until(r, [&] { return pw.wakes > 0; }), rule,
                 "closing a pipe's write end did not wake the reader");
    require_rule(pw.poll_ready(r, tp, interest::read) & ready::hangup, rule,
                 "closing a pipe's write end was not delivered as ready::hangup to the reader");
    r.remove(tp);
}

void error_reported(const detail::factory<reactor>& make) {
    const std::string rule = "a pending error is delivered as error";
    waiting_task w;
    io_driver r(make());
    fd_pair p = fd_pair::pipe_pair();
    // A pipe whose read end is gone has an error pending on its write end.
    const io_token t = r.add(p.b, interest::write);
    r.poll(0ms);
    r.clear_ready(t, ready::writable);
    w.poll_ready(r, t, interest::write);
    p.close_a();
    require_rule(
        poll_until(r, [&] { return (w.poll_ready(r, t, interest::write) & ready::error) != 0; }),
        rule, "a pipe whose reader is gone was not delivered as ready::error");
    r.remove(t);
}

void readiness_reaches_only_its_registration(const detail::factory<reactor>& make) {
    const std::string rule = "readiness goes to the token of its own registration";
    constexpr int count = 16;
    std::deque<waiting_task> wakers(count);
    io_driver r(make());
    std::deque<fd_pair> pairs;
    std::vector<io_token> tokens;
    // Registered, removed and registered again in another order, so that
    // tokens and descriptor numbers do not follow each other.
    for (int i = 0; i < count; ++i) {
        pairs.push_back(fd_pair::socket_pair());
        tokens.push_back(r.add(pairs.back().a, interest::read));
    }
    for (int i = 0; i < count; i += 2)
        r.remove(tokens[i]);
    for (int i = count - 2; i >= 0; i -= 2)
        tokens[i] = r.add(pairs[i].a, interest::read);
    for (int i = 0; i < count; ++i)
        require(wakers[i].poll_ready(r, tokens[i], interest::read) == 0,
                "an empty socket reported readable");
    for (const int chosen : {5, 10, 0}) {
        write_byte(pairs[chosen].b);
        require_rule(poll_until(r, [&] { return wakers[chosen].wakes > 0; }), rule,
                     "data on descriptor " + std::to_string(pairs[chosen].a) +
                         " did not wake its own reader");
        for (int i = 0; i < count; ++i)
            require_rule(i == chosen || wakers[i].wakes == 0, rule,
                         "data on descriptor " + std::to_string(pairs[chosen].a) +
                             " woke the reader of descriptor " + std::to_string(pairs[i].a));
        drain(pairs[chosen].a);
        r.clear_ready(tokens[chosen], ready::readable);
        wakers[chosen].wakes = 0;
        wakers[chosen].poll_ready(r, tokens[chosen], interest::read);
    }
    for (const io_token t : tokens)
        r.remove(t);
}

void readiness_before_a_wait_is_not_lost(const detail::factory<reactor>& make) {
    const std::string rule = "readiness that arrived before the wait is still delivered";
    waiting_task reader, writer;
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read_write);
    // Nobody waits yet: data arrives and polls pass (an edge-triggered backend
    // fetches the edge here; nothing has asked it to watch).
    write_byte(p.b);
    r.poll(0ms);
    r.poll(10ms);
    // Now a reader and a writer wait: the data, and the writability the socket
    // had from the start, must reach them.
    if (reader.poll_ready(r, t, interest::read) == 0)
        require_rule(poll_until(r, [&] { return reader.wakes > 0; }), rule,
                     "bytes that arrived before anyone waited never woke the reader");
    if (writer.poll_ready(r, t, interest::write) == 0)
        require_rule(poll_until(r, [&] { return writer.wakes > 0; }), rule,
                     "a socket writable before anyone waited never woke the writer");
    r.remove(t);
}

void delivered_readiness_is_not_repeated(const detail::factory<reactor>& make) {
    const std::string rule =
        "a delivered direction is not delivered again until the kernel waits for it again";
    waiting_task reader, writer;
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read_write);
    require(reader.poll_ready(r, t, interest::read) == 0, "an empty socket was readable");
    write_byte(p.b);  // and left unread: the socket stays readable (and writable)
    require_rule(poll_until(r, [&] { return reader.wakes > 0; }), rule,
                 "the reader was not woken by a write");
    if (writer.poll_ready(r, t, interest::write) == 0)
        require_rule(poll_until(r, [&] { return writer.wakes > 0; }), rule,
                     "an idle socket never woke its writer");
    // Both directions are delivered and held by the kernel: nothing new can
    // happen, so a poll must wait out its timeout instead of returning at once
    // for the same readiness (which would make every wait a busy loop).
    for (int round = 0; round < 3; ++round) {
        const auto start = clock::now();
        r.poll(60ms);
        const auto waited = clock::now() - start;
        require_rule(waited >= 50ms, rule,
                     "poll(60 ms) returned after " + ms_text(waited) +
                         " with nothing new: readiness the kernel already holds was delivered "
                         "again (a level-triggered backend must stop watching a direction once "
                         "it delivered it, until watch() asks again)");
    }
    r.remove(t);
}

void readiness_survives_a_flood(const detail::factory<reactor>& make) {
    const std::string rule = "readiness that arrives while the kernel waits is delivered";
    waiting_task writer, reader;
    io_driver r(make());
    // A writer waits on a full socket.
    fd_pair waiting = fd_pair::socket_pair();
    const io_token tw = r.add(waiting.a, interest::read_write);
    fill(waiting.a);
    r.poll(0ms);
    r.clear_ready(tw, ready::writable);
    require(writer.poll_ready(r, tw, interest::write) == 0,
            "a full socket was writable after clear_ready");
    r.poll(0ms);
    // Then, with nobody polling, far more events than a completion queue
    // holds: a backend that drops or stops watching on overflow must still
    // watch the waiting writer.
    fd_pair noisy = fd_pair::socket_pair();
    const io_token tn = r.add(noisy.a, interest::read);
    r.poll(0ms);
    reader.poll_ready(r, tn, interest::read);
    r.poll(0ms);
    constexpr int flood = 70'000;  // beyond the largest io_uring completion queue the options allow
    for (int i = 0; i < flood; ++i) {
        write_byte(noisy.b);
        char byte;
        require(::read(noisy.a, &byte, 1) == 1, "could not read the byte back");
    }
    write_byte(waiting.b);  // an event for the writer's socket that is not the one it waits for
    drain(waiting.b);       // and now it is writable
    require_rule(poll_until(r, [&] { return writer.wakes > 0; }), rule,
                 "after a flood of " + std::to_string(flood) +
                     " events on another descriptor, a writer whose socket drained was "
                     "never woken");
    r.remove(tn);
    r.remove(tw);
}

void wake_ends_a_blocking_poll(const detail::factory<reactor>& make) {
    const std::string rule = "wake() from another thread ends a blocking poll()";
    io_driver r(make());
    std::atomic<clock::rep> wake_sent{0};
    // The wake comes from another thread while this one waits in poll().
    std::thread waker_thread([&] {
        std::this_thread::sleep_for(30ms);
        wake_sent.store(clock::now().time_since_epoch().count());
        r.wake();
    });
    const auto start = clock::now();
    r.poll(prompt + 200ms);
    const auto returned = clock::now();
    waker_thread.join();
    const clock::rep sent = wake_sent.load();
    require_rule(sent != 0 && returned.time_since_epoch().count() >= sent, rule,
                 "poll() returned after " + ms_text(returned - start) +
                     " although nothing had happened yet (no wake sent)");
    require_rule(returned - clock::time_point(clock::duration(sent)) < prompt, rule,
                 "poll() ran " + ms_text(returned - start) + ", " +
                     ms_text(returned - clock::time_point(clock::duration(sent))) +
                     " after a wake() from another thread");
}

void many_wakes_coalesce(const detail::factory<reactor>& make) {
    const std::string before_rule = "a wake() before poll() makes that poll() return at once";
    const std::string coalesce_rule = "many wakes before one poll() coalesce into one return";
    io_driver r(make());
    for (int i = 0; i < 1000; ++i)
        r.wake();
    auto start = clock::now();
    r.poll(prompt);
    auto waited = clock::now() - start;
    require_rule(waited < prompt - 100ms, before_rule,
                 "poll(" + ms_text(prompt) + ") after 1000 wakes ran " + ms_text(waited));
    start = clock::now();
    r.poll(50ms);
    waited = clock::now() - start;
    require_rule(waited >= 49ms, coalesce_rule,
                 "the poll after the one that consumed 1000 wakes returned after " +
                     ms_text(waited) + " instead of blocking 50 ms");
}

void poll_honours_timeout(const detail::factory<reactor>& make) {
    const std::string rule = "poll(timeout) waits its timeout when nothing happens";
    io_driver r(make());
    for (const rtkit::duration timeout : {rtkit::duration(50ms), rtkit::duration(1500us)}) {
        const auto start = clock::now();
        r.poll(timeout);
        const auto waited = clock::now() - start;
        require_rule(waited >= timeout - 100us, rule,
                     "poll(" + ms_text(timeout) + ") returned after only " + ms_text(waited));
        require_rule(waited < timeout + 2s, rule,
                     "poll(" + ms_text(timeout) + ") took " + ms_text(waited));
    }
    const auto start = clock::now();
    r.poll(0ms);
    require_rule(clock::now() - start < 500ms, rule, "poll(0) blocked");
}

/// Raises RLIMIT_NOFILE to at least `needed` descriptors, or skips the case.
void allow_descriptors(rlim_t needed) {
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur >= needed) return;
    if (limit.rlim_max < needed)
        skip("RLIMIT_NOFILE hard limit is " + std::to_string(limit.rlim_max) + ", below the " +
             std::to_string(needed) + " descriptors this case needs");
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) < 0)
        skip("could not raise RLIMIT_NOFILE to " + std::to_string(needed));
}

/// Up to `wanted` pipes, fewer when the reactor's declared limits say so
/// (registering `registered_ends` ends of each); skips below `least`.
std::deque<fd_pair> pipes_within_limits(const reactor_limits& limits, int wanted,
                                        int registered_ends, int least) {
    int count = wanted;
    if (limits.max_registrations != 0)
        count = std::min<std::size_t>(count, limits.max_registrations / registered_ends);
    allow_descriptors(2 * static_cast<rlim_t>(count) + 256);
    std::deque<fd_pair> fds;
    for (int i = 0; i < count; ++i) {
        fds.push_back(fd_pair::pipe_pair());
        // A backend that watches only small descriptor numbers (select) gets
        // as many as fit below its limit.
        if (limits.descriptor_limit != 0 && fds.back().b >= limits.descriptor_limit) {
            fds.pop_back();
            break;
        }
    }
    if (static_cast<int>(fds.size()) < least)
        skip("no " + std::to_string(least) +
             " descriptor numbers below the reactor's declared limit are free");
    return fds;
}

void ten_thousand_descriptors(const detail::factory<reactor>& make) {
    const std::string rule = "every registration up to the declared limit is served";
    // Pipes with both ends registered: 10,000 descriptors, or the declared limits.
    const reactor_limits limits = make()->limits();
    std::deque<fd_pair> fds = pipes_within_limits(limits, 5000, 2, 2);
    const int pipes = static_cast<int>(fds.size());
    std::deque<waiting_task> wakers(static_cast<std::size_t>(pipes));
    io_driver r(make());  // after the waiters: it may hold them when it goes
    std::vector<io_token> read_tokens, write_tokens;
    for (int i = 0; i < pipes; ++i) {
        read_tokens.push_back(r.add(fds[i].a, interest::read));
        write_tokens.push_back(r.add(fds[i].b, interest::write));
        require(wakers[i].poll_ready(r, read_tokens.back(), interest::read) == 0,
                "an empty pipe reported readable");
    }
    const int step = std::max(1, pipes / 100);
    int expected = 0;
    for (int i = 0; i < pipes; i += step, ++expected)
        write_byte(fds[i].b);
    int woken = 0;
    poll_until(
        r,
        [&] {
            woken = 0;
            for (int i = 0; i < pipes; i += step)
                woken += wakers[i].wakes > 0;
            return woken == expected;
        },
        5s);
    const std::string size = std::to_string(2 * pipes) + " descriptors";
    require_rule(woken == expected, rule,
                 "only " + std::to_string(woken) + " of " + std::to_string(expected) +
                     " written pipes woke their reader among " + size);
    for (int i = 0; i < pipes; ++i)
        if (i % step != 0)
            require_rule(wakers[i].wakes == 0, rule,
                         "pipe " + std::to_string(i) +
                             " was never written but its reader was "
                             "woken");
    for (int i = 0; i < pipes; ++i) {
        r.remove(read_tokens[i]);
        r.remove(write_tokens[i]);
    }
    if (pipes < 5000) detail::note("ran at " + size + ", within the reactor's declared limits");
}

void reused_descriptor_is_watched_anew(const detail::factory<reactor>& make) {
    const std::string rule =
        "a descriptor number registered again after remove() is watched for its new registration";
    waiting_task old_task, new_task;
    io_driver r(make());
    fd_pair first = fd_pair::pipe_pair();
    const int number = first.a;
    const io_token old_token = r.add(first.a, interest::read);
    require(old_task.poll_ready(r, old_token, interest::read) == 0,
            "an empty pipe reported readable");
    write_byte(first.b);  // ready in the kernel; the reactor may not have fetched it yet
    r.remove(old_token);
    first.close_a();
    first.close_b();

    fd_pair second = fd_pair::pipe_pair();
    if (second.a != number) {  // make the new read end reuse the old number
        require(::dup3(second.a, number, O_CLOEXEC) == number, "dup3 failed");
        ::close(second.a);
        second.a = number;
    }
    const io_token new_token = r.add(second.a, interest::read);
    r.poll(20ms);
    // Readiness of the old descriptor delivered to the new registration
    // costs its task one syscall that meets EAGAIN, which forgets it (the
    // kernel tolerates that); the new descriptor must be watched all the same.
    r.clear_ready(new_token, ready::readable | ready::hangup | ready::error);
    require(new_task.poll_ready(r, new_token, interest::read) == 0,
            "an empty pipe reported readable after clear_ready");
    new_task.wakes = 0;
    write_byte(second.b);
    require_rule(poll_until(r, [&] { return new_task.wakes > 0; }), rule,
                 "descriptor " + std::to_string(number) +
                     ", registered again, was not woken by its own data");
    r.remove(new_token);
}

void several_ready_in_one_poll(const detail::factory<reactor>& make) {
    const std::string rule = "readiness goes to the token of its own registration";
    // Sixteen sockets become ready at once, before one poll: the even ones
    // readable only (data came, their send buffer is full), the odd ones
    // writable only (their full send buffer drained, nothing to read). A
    // reader and a writer wait on each, so readiness delivered under the
    // wrong token among those ready together wakes the wrong one.
    constexpr int count = 16;
    std::deque<waiting_task> readers(count), writers(count);
    io_driver r(make());
    std::deque<fd_pair> pairs;
    std::vector<io_token> tokens;
    for (int i = 0; i < count; ++i) {
        pairs.push_back(fd_pair::socket_pair());
        fill(pairs.back().a);
        tokens.push_back(r.add(pairs.back().a, interest::read_write));
    }
    r.poll(0ms);
    for (int i = 0; i < count; ++i) {
        r.clear_ready(tokens[i], ready::readable | ready::writable);
        require(readers[i].poll_ready(r, tokens[i], interest::read) == 0,
                "an empty socket reported readable");
        require(writers[i].poll_ready(r, tokens[i], interest::write) == 0,
                "a full socket reported writable");
    }
    r.poll(0ms);
    for (int i = 0; i < count; ++i) {
        if (i % 2 == 0)
            write_byte(pairs[i].b);
        else
            drain(pairs[i].b);
    }
    auto woken = [&](int i) { return i % 2 == 0 ? readers[i].wakes > 0 : writers[i].wakes > 0; };
    poll_until(r, [&] {
        for (int i = 0; i < count; ++i)
            if (!woken(i)) return false;
        return true;
    });
    for (int i = 0; i < count; ++i) {
        const std::string fd = std::to_string(pairs[i].a);
        if (i % 2 == 0) {
            require_rule(
                readers[i].wakes > 0, rule,
                "data on descriptor " + fd + ", ready with 15 others, did not wake its reader");
            require_rule(
                writers[i].wakes == 0, rule,
                "descriptor " + fd + " is full, yet its writer was woken while others were ready");
        } else {
            require_rule(writers[i].wakes > 0, rule,
                         "descriptor " + fd +
                             " drained, ready with 15 others, and its writer was not woken");
            require_rule(
                readers[i].wakes == 0, rule,
                "descriptor " + fd +
                    " has nothing to read, yet its reader was woken while others were ready");
        }
    }
    for (const io_token t : tokens)
        r.remove(t);
}

void watch_adds_a_direction(const detail::factory<reactor>& make) {
    const std::string rule = "watch() adds the directions it asks for to those still watched";
    // Full duplex on one socket: one task reads while another writes past
    // the socket's buffer, so the kernel waits in both directions at once,
    // asking for them one after the other; each must be delivered. Both
    // orders, a few rounds each.
    io_driver r(make());
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read_write);
    for (const bool reader_first : {true, false, true, false}) {
        waiting_task reader, writer;
        fill(p.a);
        r.poll(0ms);
        r.clear_ready(t, ready::readable | ready::writable);
        const auto wait_reader = [&] {
            require(reader.poll_ready(r, t, interest::read) == 0, "an empty socket was readable");
        };
        const auto wait_writer = [&] {
            require(writer.poll_ready(r, t, interest::write) == 0, "a full socket was writable");
        };
        if (reader_first) {
            wait_reader();
            wait_writer();
        } else {
            wait_writer();
            wait_reader();
        }
        const std::string order = reader_first ? "read, then write" : "write, then read";
        write_byte(p.b);
        require_rule(poll_until(r, [&] { return reader.wakes > 0; }), rule,
                     "watch(" + order + "): data for the reader did not wake it");
        drain(p.b);
        require_rule(poll_until(r, [&] { return writer.wakes > 0; }), rule,
                     "watch(" + order + "): the full socket drained and the writer was not woken");
        drain(p.a);
    }
    r.remove(t);
}

void burst_beyond_any_cap(const detail::factory<reactor>& make) {
    const std::string rule =
        "readiness beyond what one poll() delivers comes with the next, which does not wait";
    // 4096 pipes become readable at once: more than any per-poll batch a
    // reactor of this kind is configured with in practice (epoll's
    // events_per_poll is 256 by default). What one poll() does not deliver
    // must come with the next ones, without their waiting for their timeout.
    const reactor_limits limits = make()->limits();
    std::deque<fd_pair> fds = pipes_within_limits(limits, 4096, 1, 2);
    const int count = static_cast<int>(fds.size());
    std::deque<waiting_task> readers(static_cast<std::size_t>(count));
    io_driver r(make());
    std::vector<io_token> tokens;
    for (int i = 0; i < count; ++i) {
        tokens.push_back(r.add(fds[i].a, interest::read));
        require(readers[i].poll_ready(r, tokens.back(), interest::read) == 0,
                "an empty pipe reported readable");
    }
    r.poll(0ms);
    for (const fd_pair& p : fds)
        write_byte(p.b);
    int woken = 0;
    int woken_before = -1;
    std::size_t most_in_one_poll = 0;
    // Bounded by progress, not by a total time: a reactor configured to fetch
    // one event per poll (or slowed by a sanitizer) needs thousands of polls,
    // each of which must return at once.
    while (woken < count && woken > woken_before) {
        woken_before = woken;
        const auto poll_start = clock::now();
        const std::size_t delivered = r.poll(prompt);
        most_in_one_poll = std::max(most_in_one_poll, delivered);
        woken = 0;
        for (const waiting_task& w : readers)
            woken += w.wakes > 0;
        require_rule(woken == count || clock::now() - poll_start < prompt / 2, rule,
                     "with " + std::to_string(count - woken) + " of " + std::to_string(count) +
                         " readable pipes not delivered yet, poll(" + ms_text(prompt) +
                         ") waited " + ms_text(clock::now() - poll_start));
    }
    require_rule(woken == count, rule,
                 "only " + std::to_string(woken) + " of " + std::to_string(count) +
                     " pipes written at once woke their reader (most delivered by one poll: " +
                     std::to_string(most_in_one_poll) + ")");
    for (const io_token t : tokens)
        r.remove(t);
    detail::note("a burst of " + std::to_string(count) + ", at most " +
                 std::to_string(most_in_one_poll) + " delivered by one poll");
}

/// Signals the case sends to the polling thread; the handler counts them.
std::atomic<int> signals_caught{0};
void count_signal(int) {
    signals_caught.fetch_add(1, std::memory_order_relaxed);
}

void signal_does_not_end_poll(const detail::factory<reactor>& make) {
    const std::string rule = "a signal caught during poll() does not make it fail";
    // A program that embeds rtkit catches signals of its own: one that lands
    // while poll() blocks interrupts the wait (EINTR). The wait may go on or
    // return early (the kernel polls again), but must not end in an error.
    // SIGURG (ignored by default, so nothing else expects it here) with a
    // handler installed without SA_RESTART, as such a program would.
    struct sigaction caught {};
    caught.sa_handler = &count_signal;
    sigemptyset(&caught.sa_mask);
    struct sigaction previous {};
    sigaction(SIGURG, &caught, &previous);
    sigset_t urg, previous_mask;
    sigemptyset(&urg);
    sigaddset(&urg, SIGURG);
    pthread_sigmask(SIG_UNBLOCK, &urg, &previous_mask);
    io_driver r(make());
    std::atomic<bool> polling{false}, done{false};
    const pthread_t poller = pthread_self();
    // Signals every 2 ms while poll() runs: many land inside the wait.
    std::thread sender([&] {
        while (!done.load()) {
            if (polling.load()) pthread_kill(poller, SIGURG);
            std::this_thread::sleep_for(2ms);
        }
    });
    std::string failure;
    const int before = signals_caught.load();
    try {
        polling.store(true);
        r.poll(150ms);
        polling.store(false);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    done.store(true);
    sender.join();
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
    sigaction(SIGURG, &previous, nullptr);
    const int caught_count = signals_caught.load() - before;
    require_rule(
        failure.empty(), rule,
        "poll(150 ms) threw after " + std::to_string(caught_count) + " signals: " + failure);
    if (caught_count == 0) skip("no signal reached the polling thread while it polled");
}

// The completion interface (rtkit.completion.v1), for reactors that offer it.

completion_reactor_v1& completions_of(io_driver& r) {
    auto* c = static_cast<completion_reactor_v1*>(
        r.backend().query_interface(completion_reactor_v1_name));
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
    testing::counting_waker w;
    io_driver r(make());
    completion_reactor_v1& c = completions_of(r);
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read_write);  // as the net layer registers
    char got[16] = {};
    io_completion done;
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), done);
    require(done.pending, "a recv with nothing to read completed inside submit()");
    r.poll(20ms);
    require(done.pending && w.wakes == 0, "a recv completed with nothing to read");
    write_text(p.b, "hello");
    require(poll_until(r, [&] { return !done.pending; }), "a recv did not complete after a write");
    require(done.result == 5 && std::string(got, 5) == "hello",
            "a recv completed with " + std::to_string(done.result) + " instead of 5 bytes");
    require(w.wakes == 1 && w.live == 0, "a completion must wake its waker exactly once");

    // Bytes that came before the recv: completed inside submit() (then without a
    // wake) or by a later poll(), never lost.
    write_text(p.b, "again");
    r.poll(20ms);
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), done);
    if (!done.pending) require(w.wakes == 1, "a recv completed inside submit() woke its waker");
    require(poll_until(r, [&] { return !done.pending; }),
            "a recv of waiting bytes never completed");
    require(done.result == 5 && std::string(got, 5) == "again",
            "a recv of waiting bytes completed with " + std::to_string(done.result));
    done.on_complete.reset();

    char text[] = "world";
    io_completion sent;
    c.submit(request_for(io_opcode::send, p.a, text, 5), sent);
    require(poll_until(r, [&] { return !sent.pending; }), "a send did not complete");
    require(sent.result == 5, "a send completed with " + std::to_string(sent.result));
    char echoed[8] = {};
    require(::read(p.b, echoed, sizeof echoed) == 5 && std::string(echoed, 5) == "world",
            "the peer did not receive what the send sent");
    r.remove(t);
}

void completion_cancel_leaves_nothing(const detail::factory<reactor>& make) {
    testing::counting_waker w;
    io_driver r(make());
    completion_reactor_v1& c = completions_of(r);
    fd_pair p = fd_pair::socket_pair();
    const io_token t = r.add(p.a, interest::read_write);
    char lost[16] = {};
    io_completion done;
    done.on_complete = w.make();
    c.submit(request_for(io_opcode::recv, p.a, lost, sizeof lost), done);
    r.poll(0ms);  // the recv reaches the kernel
    c.cancel(done);
    require(!done.pending, "cancel() returned with the operation still pending");
    require(done.result == -ECANCELED,
            "a cancelled recv with nothing to read ended with " + std::to_string(done.result));
    require(w.wakes == 0 && w.live == 0, "cancel() must drop the waker without a wake");
    write_text(p.b, "later");
    r.poll(50ms);
    require(done.result == -ECANCELED && lost[0] == 0,
            "the cancelled recv was completed (or its buffer written) after cancel()");
    char got[16] = {};
    io_completion next;
    c.submit(request_for(io_opcode::recv, p.a, got, sizeof got), next);
    require(poll_until(r, [&] { return !next.pending; }),
            "the recv after a cancel never completed");
    require(next.result == 5 && std::string(got, 5) == "later",
            "the cancelled recv consumed bytes meant for the next one");
    r.remove(t);
}

void completion_accept_and_connect(const detail::factory<reactor>& make) {
    io_driver r(make());
    completion_reactor_v1& c = completions_of(r);
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
    const io_token lt = r.add(listener, interest::read);
    const io_token ct = r.add(client, interest::read_write);
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
    const bool both = poll_until(r, [&] { return !accepted.pending && !connected.pending; });
    // A wrong reactor may report 0-2 as "accepted": never close this process's stdio.
    if (!accepted.pending && accepted.result > STDERR_FILENO) ::close(accepted.result);
    r.remove(ct);
    r.remove(lt);
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
        {"add_refuses_a_closed_descriptor", &add_refuses_a_closed_descriptor,
         "`add()` of a descriptor that is not open throws `EBADF`, and leaves nothing behind"},
        {"read_readiness", &read_readiness,
         "bytes arriving wake a read waiter once and are `readable`; after the kernel forgets "
         "it (an `EAGAIN`) only new bytes wake it again"},
        {"write_readiness", &write_readiness,
         "an idle socket is `writable`; a full one wakes its writer only once the peer drains it"},
        {"interest_changes", &interest_changes,
         "a direction is delivered once the kernel waits for it (`watch()`), whatever `add()` "
         "was told"},
        {"watch_adds_a_direction", &watch_adds_a_direction,
         "full duplex: with a reader waiting, then a writer on a full socket (and the other way "
         "round), `watch()` of the second direction keeps the first watched: both are woken"},
        {"hangup_reported", &hangup_reported,
         "closing a socket's peer, or a pipe's write end, wakes the reader with `hangup`"},
        {"error_reported", &error_reported,
         "the write end of a pipe whose read end is gone gets `error`"},
        {"readiness_reaches_only_its_registration", &readiness_reaches_only_its_registration,
         "data on one of 16 descriptors wakes its own reader and no other"},
        {"several_ready_in_one_poll", &several_ready_in_one_poll,
         "16 sockets ready together, 8 only readable and 8 only writable: each wakes its own "
         "reader or writer and no other"},
        {"readiness_before_a_wait_is_not_lost", &readiness_before_a_wait_is_not_lost,
         "bytes (and writability) that came before anyone waited still reach the waiter that "
         "comes later"},
        {"delivered_readiness_is_not_repeated", &delivered_readiness_is_not_repeated,
         "with both directions delivered and nothing new, `poll` waits out its timeout (no busy "
         "loop)"},
        {"readiness_survives_a_flood", &readiness_survives_a_flood,
         "a writer waiting on a full socket is woken when it drains, after 70,000 unpolled "
         "events on another descriptor (more than any completion queue holds)"},
        {"burst_beyond_any_cap", &burst_beyond_any_cap,
         "4096 pipes readable at once (more than a per-poll batch such as epoll's "
         "`events_per_poll`; fewer within declared `limits()`): every reader is woken, and a "
         "`poll` while readiness is still undelivered does not wait its timeout"},
        {"wake_ends_a_blocking_poll", &wake_ends_a_blocking_poll,
         "`wake()` from another thread ends a blocking `poll`, and not before it is called"},
        {"many_wakes_coalesce", &many_wakes_coalesce,
         "a `wake()` before `poll` makes it return at once; 1000 wakes make one return, not many"},
        {"poll_honours_timeout", &poll_honours_timeout,
         "`poll(timeout)` does not return before its timeout (a lower bound only, "
         "sub-millisecond too); `poll(0)` does not block"},
        {"signal_does_not_end_poll", &signal_does_not_end_poll,
         "signals caught (a handler without `SA_RESTART`) while `poll` blocks do not make it "
         "throw: `EINTR` is retried, or `poll` returns early; skipped when no signal reached it"},
        {"ten_thousand_descriptors", &ten_thousand_descriptors,
         "10,000 registrations, each woken for its own descriptor; fewer when the reactor "
         "declares `limits()` (the note says how many), skipped when `RLIMIT_NOFILE` cannot be "
         "raised"},
        {"reused_descriptor_is_watched_anew", &reused_descriptor_is_watched_anew,
         "a descriptor number registered again after `remove()` is woken by its own data "
         "(readiness of the old descriptor delivered to it is tolerated)"},
        {"completion_recv_and_send", &completion_recv_and_send,
         "for a reactor that returns `rtkit.completion.v1` from `query_interface` (skipped "
         "otherwise): recv and send complete with their results and wake once; a recv of bytes "
         "already there completes, inside `submit()` only without a wake"},
        {"completion_cancel_leaves_nothing", &completion_cancel_leaves_nothing,
         "completion interface: `cancel()` ends a recv with `-ECANCELED` and drops its waker; "
         "nothing touches it afterwards and it consumed nothing"},
        {"completion_accept_and_connect", &completion_accept_and_connect,
         "completion interface: accept and connect complete on TCP"},
    };
    return cases;
}

}  // namespace detail

report run_reactor_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<reactor>(file, options, detail::reactor_cases());
}

}  // namespace rtkit::conformance
