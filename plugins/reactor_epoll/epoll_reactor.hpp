#pragma once
// rtkit_epoll::epoll_reactor: an edge-triggered epoll readiness reactor.
#include <atomic>
#include <cstdint>
#include <vector>

#include <sys/epoll.h>

#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"

namespace rtkit_epoll {

/// Readiness through one edge-triggered epoll registration per descriptor.
///
/// Every descriptor is registered once for EPOLLIN|EPOLLOUT|EPOLLRDHUP with
/// EPOLLET: one epoll_ctl per add(), none per wait and none per watch() (an
/// edge-triggered registration reports every change from the start, so there
/// is nothing to ask for). Each event is delivered with the registration's
/// token, which is the epoll_event's user data; the kernel's side latches it,
/// so an edge that arrives while nobody waits is kept.
class epoll_reactor final : public rtkit::reactor {
  public:
    explicit epoll_reactor(const rtkit::plugin_options& options);
    explicit epoll_reactor(std::size_t events_per_poll);
    ~epoll_reactor() override;
    epoll_reactor(const epoll_reactor&) = delete;
    epoll_reactor& operator=(const epoll_reactor&) = delete;

    void add(int fd, rtkit::io_token token) override;
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override;
    void remove(int fd, rtkit::io_token token) noexcept override;
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override;
    void wake() noexcept override;

  private:
    int wait(rtkit::duration timeout);
    void drain_wake_fd() noexcept;

    int epoll_fd_ = -1;
    int wake_fd_ = -1;  ///< eventfd; its user data is 0, never a registration's token
    /// Set by the first wake() since the last drain; later wakes skip the write.
    std::atomic<bool> wake_pending_{false};
    bool have_pwait2_ = true;          ///< epoll_pwait2 (ns timeouts); false after ENOSYS
    std::vector<epoll_event> events_;  ///< poll()'s batch buffer, reused
};

}  // namespace rtkit_epoll
