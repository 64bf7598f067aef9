#include "epoll_reactor.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <ctime>
#include <system_error>

#include "rtkit/reactor_support/interrupted_wait.hpp"

namespace rtkit_epoll {
namespace {

/// The eventfd's user data: no registration's token is 0.
constexpr std::uint64_t wake_token = 0;

[[noreturn]] void throw_errno(const char* what) {
    throw std::system_error(errno, std::generic_category(), what);
}

unsigned ready_bits(std::uint32_t events) {
    unsigned bits = 0;
    if (events & EPOLLIN) bits |= rtkit::ready::readable;
    if (events & EPOLLOUT) bits |= rtkit::ready::writable;
    if (events & (EPOLLRDHUP | EPOLLHUP)) bits |= rtkit::ready::hangup;
    if (events & EPOLLERR) bits |= rtkit::ready::error;
    return bits;
}

}  // namespace

epoll_reactor::epoll_reactor(const rtkit::plugin_options& options)
    : epoll_reactor(static_cast<std::size_t>(options.get_int("events_per_poll"))) {}

epoll_reactor::epoll_reactor(std::size_t events_per_poll) : events_(events_per_poll) {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw_errno("epoll_create1");
    wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) {
        const int saved = errno;
        close(epoll_fd_);
        throw std::system_error(saved, std::generic_category(), "eventfd");
    }
    // Level-triggered: a wake not yet drained keeps the next wait from blocking.
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = wake_token;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) < 0) {
        const int saved = errno;
        close(wake_fd_);
        close(epoll_fd_);
        throw std::system_error(saved, std::generic_category(), "epoll_ctl(ADD eventfd)");
    }
}

epoll_reactor::~epoll_reactor() {
    close(wake_fd_);
    close(epoll_fd_);
}

void epoll_reactor::add(int fd, rtkit::io_token token) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.u64 = token;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0)
        throw std::system_error(errno, std::generic_category(),
                                "epoll_ctl(ADD, fd " + std::to_string(fd) + ")");
}

void epoll_reactor::watch(int, rtkit::io_token, rtkit::interest) {
    // Nothing to do: the edge-triggered registration reports every change.
}

void epoll_reactor::remove(int fd, rtkit::io_token) noexcept {
    // Fails harmlessly when the descriptor was already closed (epoll dropped it).
    // Events fetched for it are delivered in the poll() that fetched them, so
    // none is left over to deliver later.
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

int epoll_reactor::wait(rtkit::duration timeout) {
    const int capacity = static_cast<int>(events_.size());
    if (have_pwait2_) {
        timespec ts{};
        const timespec* limit = nullptr;
        if (timeout.count() >= 0) {
            ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
            ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
            limit = &ts;
        }
        const int n = epoll_pwait2(epoll_fd_, events_.data(), capacity, limit, nullptr);
        if (n >= 0 || errno != ENOSYS) return n;
        have_pwait2_ = false;  // kernel older than 5.11: millisecond waits from now on
    }
    int ms = -1;
    if (timeout.count() >= 0) {
        // Round up: waking before the deadline would only make the caller wait again.
        const std::int64_t rounded = (timeout.count() + 999'999) / 1'000'000;
        ms = rounded > INT_MAX ? INT_MAX : static_cast<int>(rounded);
    }
    return epoll_wait(epoll_fd_, events_.data(), capacity, ms);
}

void epoll_reactor::drain_wake_fd() noexcept {
    std::uint64_t count = 0;
    // EAGAIN means another drain got there first: nothing is lost either way.
    [[maybe_unused]] const ssize_t n = read(wake_fd_, &count, sizeof count);
    // After draining, the next wake() must write again. acq_rel: a waker that saw
    // the flag still set published its work before our exchange.
    wake_pending_.exchange(false, std::memory_order_acq_rel);
}

std::size_t epoll_reactor::poll(rtkit::duration timeout, rtkit::readiness_sink& sink) {
    const int n = rtkit::reactor_support::wait_through_interrupts(
        timeout, [this](rtkit::duration left) { return wait(left); });
    if (n < 0) throw_errno("epoll_wait");
    for (int i = 0; i < n; ++i) {
        const epoll_event& ev = events_[static_cast<std::size_t>(i)];
        if (ev.data.u64 == wake_token)
            drain_wake_fd();
        else
            sink.deliver(ev.data.u64, ready_bits(ev.events));
    }
    return 0;  // readiness only: nothing of its own to complete
}

void epoll_reactor::wake() noexcept {
    if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return;  // already pending
    const std::uint64_t one = 1;
    // Only EAGAIN (counter saturated) can fail here, and then a wake is pending anyway.
    [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
}

}  // namespace rtkit_epoll
