#pragma once
// rtkit_epoll::epoll_reactor: an edge-triggered epoll readiness reactor.
#include <atomic>
#include <cstdint>
#include <vector>

#include <sys/epoll.h>

#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"

namespace rtkit_epoll {

/// Readiness through one edge-triggered epoll registration per descriptor.
///
/// Every descriptor is registered once for EPOLLIN|EPOLLOUT|EPOLLRDHUP with
/// EPOLLET: one epoll_ctl per add(), none per wait. Each event is latched into
/// the registration's bits, so an edge that arrives while no waker is armed is
/// kept until clear_ready(). Interest only decides which wakers may be armed and
/// which events count as "became ready"; everything is latched, so widening the
/// interest later loses nothing (an edge is reported once, and never again).
///
/// Registrations live in a reactor_support::registration_table; the io_token
/// is also the epoll_event's user data, so an event fetched for a registration
/// that was removed (and whose slot may be reused) fails the generation check
/// and is dropped.
class epoll_reactor final : public rtkit::reactor {
  public:
    explicit epoll_reactor(const rtkit::plugin_options& options);
    explicit epoll_reactor(std::size_t events_per_poll);
    ~epoll_reactor() override;
    epoll_reactor(const epoll_reactor&) = delete;
    epoll_reactor& operator=(const epoll_reactor&) = delete;

    rtkit::io_token add(int fd, rtkit::interest what) override;
    void modify(rtkit::io_token token, rtkit::interest what) override;
    void remove(rtkit::io_token token) noexcept override;
    unsigned poll_ready(rtkit::io_token token, rtkit::interest want,
                        const rtkit::waker& w) override;
    void clear_ready(rtkit::io_token token, unsigned bits) noexcept override;
    std::size_t poll(rtkit::duration timeout) override;
    void wake() noexcept override;

  private:
    int wait(rtkit::duration timeout);
    void drain_wake_fd() noexcept;

    int epoll_fd_ = -1;
    int wake_fd_ = -1;  ///< eventfd; its token is wake_token, never a registration's
    /// Set by the first wake() since the last drain; later wakes skip the write.
    std::atomic<bool> wake_pending_{false};
    bool have_pwait2_ = true;  ///< epoll_pwait2 (ns timeouts); false after ENOSYS
    rtkit::reactor_support::registration_table<> table_;
    std::vector<epoll_event> events_;  ///< poll()'s batch buffer, reused
};

}  // namespace rtkit_epoll
