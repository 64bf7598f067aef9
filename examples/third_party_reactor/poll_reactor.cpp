#include "poll_reactor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <string>
#include <system_error>

#include "rtkit/reactor_support/interrupted_wait.hpp"

namespace example_poll {
namespace {

[[noreturn]] void throw_errno(int error, const std::string& what) {
    throw std::system_error(error, std::generic_category(), what);
}

// POLLRDHUP (the peer shut down its writing side) is Linux-only; elsewhere a
// peer that closes is still reported, as POLLHUP or as readable-then-EOF.
#ifdef POLLRDHUP
constexpr short peer_hangup = POLLRDHUP;
#else
constexpr short peer_hangup = 0;
#endif

unsigned ready_bits(short revents) {
    unsigned bits = 0;
    if (revents & POLLIN) bits |= rtkit::ready::readable;
    if (revents & POLLOUT) bits |= rtkit::ready::writable;
    if (revents & (POLLHUP | peer_hangup)) bits |= rtkit::ready::hangup;
    // POLLNVAL: the descriptor was closed before remove(); report it rather
    // than poll a number that may already belong to another file.
    if (revents & (POLLERR | POLLNVAL)) bits |= rtkit::ready::error;
    return bits;
}

/// A pipe whose ends are non-blocking and closed on exec. pipe() and fcntl()
/// rather than pipe2() so the example stays portable, like poll(2) itself.
void make_self_pipe(int& read_end, int& write_end) {
    int fds[2];
    if (::pipe(fds) < 0) throw_errno(errno, "pipe");
    for (const int fd : fds) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
            ::fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
            const int saved = errno;
            ::close(fds[0]);
            ::close(fds[1]);
            throw_errno(saved, "fcntl on the wake pipe");
        }
    }
    read_end = fds[0];
    write_end = fds[1];
}

}  // namespace

poll_reactor::poll_reactor(const rtkit::plugin_options& /*options: it declares none*/) {
    make_self_pipe(wake_read_, wake_write_);
}

poll_reactor::~poll_reactor() {
    ::close(wake_read_);
    ::close(wake_write_);
}

void poll_reactor::add(int fd, rtkit::io_token token) {
    // poll(2) keeps no registration to fail, so check the descriptor here: a
    // bad one must be refused now, as epoll_ctl(ADD) would, not reported later.
    if (::fcntl(fd, F_GETFD) < 0)
        throw_errno(EBADF, "poll reactor add(fd " + std::to_string(fd) + ")");
    const auto at = static_cast<std::size_t>(fd);
    if (at >= by_fd_.size()) by_fd_.resize(at + 1);
    by_fd_[at] = registration{token, 0};  // nothing is watched until rtkit waits
}

void poll_reactor::watch(int fd, rtkit::io_token, rtkit::interest want) {
    registration& r = by_fd_[static_cast<std::size_t>(fd)];
    const auto bits = static_cast<unsigned>(want);
    // A reader also learns of the peer's hang-up (POLLHUP and POLLERR come
    // whatever is asked for).
    if (bits & rtkit::ready::readable) r.events |= POLLIN | peer_hangup;
    if (bits & rtkit::ready::writable) r.events |= POLLOUT;
}

void poll_reactor::remove(int fd, rtkit::io_token) noexcept {
    by_fd_[static_cast<std::size_t>(fd)] = registration{};
}

void poll_reactor::build_poll_list() {
    pollfds_.clear();
    pollfds_.push_back(pollfd{wake_read_, POLLIN, 0});
    for (std::size_t fd = 0; fd < by_fd_.size(); ++fd)
        if (by_fd_[fd].token != 0 && by_fd_[fd].events != 0)
            pollfds_.push_back(pollfd{static_cast<int>(fd), by_fd_[fd].events, 0});
}

int poll_reactor::wait(rtkit::duration timeout) {
    // poll(2) counts milliseconds: round up, since returning before the
    // timeout would only make the caller wait again.
    const auto to_ms = [](rtkit::duration d) {
        if (d.count() < 0) return -1;
        const std::int64_t rounded = (d.count() + 999'999) / 1'000'000;
        return rounded > INT_MAX ? INT_MAX : static_cast<int>(rounded);
    };
    // Ends only for an event, a wake() or the timeout, not for EINTR.
    return rtkit::reactor_support::wait_through_interrupts(timeout, [&](rtkit::duration left) {
        return ::poll(pollfds_.data(), static_cast<nfds_t>(pollfds_.size()), to_ms(left));
    });
}

void poll_reactor::drain_wake_pipe() noexcept {
    char buffer[64];
    while (::read(wake_read_, buffer, sizeof buffer) > 0) {
    }
    // After draining, the next wake() must write again. acq_rel: a waker that
    // saw the flag still set published its work before our exchange, so the
    // caller of this poll() sees it.
    wake_pending_.exchange(false, std::memory_order_acq_rel);
}

std::size_t poll_reactor::poll(rtkit::duration timeout, rtkit::readiness_sink& sink) {
    build_poll_list();
    if (wait(timeout) < 0) throw_errno(errno, "poll");
    if (pollfds_[0].revents) drain_wake_pipe();
    for (std::size_t i = 1; i < pollfds_.size(); ++i) {
        if (!pollfds_[i].revents) continue;
        // Nothing adds or removes a registration during poll() (the wakers
        // that deliver() fires never call back into the reactor), so this is
        // still the registration the list was built from.
        registration& r = by_fd_[static_cast<std::size_t>(pollfds_[i].fd)];
        const unsigned bits = ready_bits(pollfds_[i].revents);
        sink.deliver(r.token, bits);
        // rtkit holds it now: stop asking until it waits again (watch()).
        if (bits & (rtkit::ready::hangup | rtkit::ready::error))
            r.events = 0;
        else if (bits & rtkit::ready::readable)
            r.events &= static_cast<short>(~(POLLIN | peer_hangup));
        if (bits & rtkit::ready::writable) r.events &= static_cast<short>(~POLLOUT);
    }
    return 0;  // readiness only
}

void poll_reactor::wake() noexcept {
    if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return;  // already pending
    const char byte = 1;
    // Only EAGAIN (the pipe is full) can fail here, and then a wake is pending anyway.
    [[maybe_unused]] const ssize_t n = ::write(wake_write_, &byte, 1);
}

}  // namespace example_poll
