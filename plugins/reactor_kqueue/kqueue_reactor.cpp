#include "kqueue_reactor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <string>
#include <system_error>

#include "rtkit/reactor_support/interrupted_wait.hpp"

namespace rtkit_kqueue {
namespace {

/// The wake event's udata: no registration's token is 0.
constexpr std::uint64_t wake_token = 0;

/// Fills a kevent field by field: udata is a pointer on macOS/FreeBSD and an
/// intptr_t on NetBSD, and the C-style cast suits both.
struct kevent change(int fd, int filter, int flags, std::uint64_t token) {
    struct kevent ev {};
    ev.ident = static_cast<uintptr_t>(fd);
    ev.filter = static_cast<decltype(ev.filter)>(filter);
    ev.flags = static_cast<decltype(ev.flags)>(flags);
    ev.udata = (decltype(ev.udata))(uintptr_t)token;
    return ev;
}

std::uint64_t token_of(const struct kevent& ev) {
    return (std::uint64_t)(uintptr_t)ev.udata;
}

[[noreturn]] void throw_errno(const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

kqueue_reactor::kqueue_reactor(const rtkit::plugin_options& options)
    : events_(static_cast<std::size_t>(options.get_int("events_per_poll"))) {
    kq_ = kqueue();
    if (kq_ < 0) throw_errno("kqueue");
    fcntl(kq_, F_SETFD, FD_CLOEXEC);
#ifdef EVFILT_USER
    struct kevent ev = change(0, EVFILT_USER, EV_ADD | EV_CLEAR, wake_token);
#else
    if (pipe(wake_pipe_) < 0) {
        const int saved = errno;
        close(kq_);
        throw std::system_error(saved, std::generic_category(), "pipe");
    }
    for (int fd : wake_pipe_) {
        fcntl(fd, F_SETFL, O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    struct kevent ev = change(wake_pipe_[0], EVFILT_READ, EV_ADD, wake_token);  // level
#endif
    if (kevent(kq_, &ev, 1, nullptr, 0, nullptr) < 0) {
        const int saved = errno;
        close(kq_);
        throw std::system_error(saved, std::generic_category(), "kevent(add wake event)");
    }
}

kqueue_reactor::~kqueue_reactor() {
    close(kq_);
    for (int fd : wake_pipe_)
        if (fd >= 0) close(fd);
}

void kqueue_reactor::add(int fd, rtkit::io_token token) {
    struct kevent changes[2] = {change(fd, EVFILT_READ, EV_ADD | EV_CLEAR, token),
                                change(fd, EVFILT_WRITE, EV_ADD | EV_CLEAR, token)};
    if (kevent(kq_, changes, 2, nullptr, 0, nullptr) < 0) {
        const int saved = errno;
        // The read filter may have been added before the write filter failed.
        struct kevent undo = change(fd, EVFILT_READ, EV_DELETE, 0);
        kevent(kq_, &undo, 1, nullptr, 0, nullptr);
        throw std::system_error(saved, std::generic_category(),
                                "kevent(EV_ADD, fd " + std::to_string(fd) + ")");
    }
}

void kqueue_reactor::watch(int, rtkit::io_token, rtkit::interest) {
    // Nothing to do: both edge-triggered filters report every change.
}

void kqueue_reactor::remove(int fd, rtkit::io_token) noexcept {
    // Fails harmlessly when the descriptor was closed already (close removes
    // its filters). Events fetched are delivered in the poll() that fetched them.
    struct kevent changes[2] = {change(fd, EVFILT_READ, EV_DELETE, 0),
                                change(fd, EVFILT_WRITE, EV_DELETE, 0)};
    kevent(kq_, changes, 2, nullptr, 0, nullptr);
}

void kqueue_reactor::drain_wake() noexcept {
#ifndef EVFILT_USER
    char buf[64];
    while (read(wake_pipe_[0], buf, sizeof buf) > 0) {
    }
#endif
    wake_pending_.exchange(false, std::memory_order_acq_rel);
}

int kqueue_reactor::wait(rtkit::duration timeout) {
    timespec ts{};
    const timespec* limit = nullptr;
    if (timeout.count() >= 0) {
        ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
        ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
        limit = &ts;
    }
    return kevent(kq_, nullptr, 0, events_.data(), static_cast<int>(events_.size()), limit);
}

std::size_t kqueue_reactor::poll(rtkit::duration timeout, rtkit::readiness_sink& sink) {
    const int n = rtkit::reactor_support::wait_through_interrupts(
        timeout, [this](rtkit::duration left) { return wait(left); });
    if (n < 0) throw_errno("kevent(wait)");
    for (int i = 0; i < n; ++i) {
        const struct kevent& ev = events_[static_cast<std::size_t>(i)];
        if (token_of(ev) == wake_token) {
            drain_wake();
            continue;
        }
        unsigned bits = 0;
        if (ev.flags & EV_ERROR) {
            bits = rtkit::ready::error;
        } else if (ev.filter == EVFILT_READ) {
            bits = rtkit::ready::readable;
            // EV_EOF: the read side is shut down; fflags then holds the
            // socket's error, if it has one (a reset, a refused connect).
            if (ev.flags & EV_EOF) bits |= rtkit::ready::hangup;
            if ((ev.flags & EV_EOF) && ev.fflags != 0) bits |= rtkit::ready::error;
        } else if (ev.filter == EVFILT_WRITE) {
            bits = rtkit::ready::writable;
            // The reader is gone: a write would fail (EPIPE), as epoll's EPOLLERR says.
            if (ev.flags & EV_EOF) bits |= rtkit::ready::hangup | rtkit::ready::error;
        }
        sink.deliver(token_of(ev), bits);
    }
    return 0;  // readiness only
}

void kqueue_reactor::wake() noexcept {
    if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return;  // already pending
#ifdef EVFILT_USER
    struct kevent ev = change(0, EVFILT_USER, 0, wake_token);
    ev.fflags = NOTE_TRIGGER;
    kevent(kq_, &ev, 1, nullptr, 0, nullptr);
#else
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = write(wake_pipe_[1], &byte, 1);
#endif
}

}  // namespace rtkit_kqueue
