#include "kqueue_reactor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <string>
#include <system_error>

namespace rtkit_kqueue {
namespace {

/// The wake event's udata: a token's slot index is never UINT32_MAX.
constexpr std::uint64_t wake_token = UINT64_MAX;

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

rtkit::io_token kqueue_reactor::add(int fd, rtkit::interest what) {
    // The table refuses a second add of one descriptor (EEXIST): EV_ADD alone
    // would silently update the existing filters.
    const rtkit::io_token token = table_.insert(fd, what);
    struct kevent changes[2] = {change(fd, EVFILT_READ, EV_ADD | EV_CLEAR, token),
                                change(fd, EVFILT_WRITE, EV_ADD | EV_CLEAR, token)};
    if (kevent(kq_, changes, 2, nullptr, 0, nullptr) < 0) {
        const int saved = errno;
        table_.erase(token);
        throw std::system_error(saved, std::generic_category(),
                                "kevent(EV_ADD, fd " + std::to_string(fd) + ")");
    }
    return token;
}

void kqueue_reactor::modify(rtkit::io_token token, rtkit::interest what) {
    table_.modify(token, what);  // both filters stay: nothing to change in the kernel
}

void kqueue_reactor::remove(rtkit::io_token token) noexcept {
    auto* r = table_.find(token);
    if (!r) return;
    // Fails harmlessly when the descriptor was closed already (close removes its filters).
    struct kevent changes[2] = {change(r->fd, EVFILT_READ, EV_DELETE, 0),
                                change(r->fd, EVFILT_WRITE, EV_DELETE, 0)};
    kevent(kq_, changes, 2, nullptr, 0, nullptr);
    table_.erase(token);
}

unsigned kqueue_reactor::poll_ready(rtkit::io_token token, rtkit::interest want,
                                    const rtkit::waker& w) {
    return table_.poll_ready(token, want, w);
}

void kqueue_reactor::clear_ready(rtkit::io_token token, unsigned bits) noexcept {
    table_.clear_ready(token, bits);
}

void kqueue_reactor::drain_wake() noexcept {
#ifndef EVFILT_USER
    char buf[64];
    while (read(wake_pipe_[0], buf, sizeof buf) > 0) {
    }
#endif
    wake_pending_.exchange(false, std::memory_order_acq_rel);
}

std::size_t kqueue_reactor::poll(rtkit::duration timeout) {
    timespec ts{};
    const timespec* limit = nullptr;
    if (timeout.count() >= 0) {
        ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
        ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
        limit = &ts;
    }
    const int n = kevent(kq_, nullptr, 0, events_.data(), static_cast<int>(events_.size()), limit);
    if (n < 0) {
        if (errno == EINTR) return 0;
        throw_errno("kevent(wait)");
    }
    std::size_t became_ready = 0;
    for (int i = 0; i < n; ++i) {
        const struct kevent& ev = events_[static_cast<std::size_t>(i)];
        if (token_of(ev) == wake_token) {
            drain_wake();
            continue;
        }
        auto* r = table_.find(token_of(ev));
        if (!r) continue;  // removed after the kernel queued it
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
        if (table_.deliver(*r, bits)) ++became_ready;
    }
    return became_ready;
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
