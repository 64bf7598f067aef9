#pragma once
// rtkit_kqueue::kqueue_reactor: an edge-triggered kqueue readiness reactor.
#include <sys/event.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"

namespace rtkit_kqueue {

/// Readiness through kqueue: each descriptor gets an EVFILT_READ and an
/// EVFILT_WRITE filter with EV_CLEAR (edge-triggered, like the epoll reactor),
/// added once, so watch() has nothing to do. The udata of both filters is the
/// registration's token, which every event is delivered with.
/// wake() triggers an EVFILT_USER event (a self-pipe where there is none).
class kqueue_reactor final : public rtkit::reactor {
  public:
    explicit kqueue_reactor(const rtkit::plugin_options& options);
    ~kqueue_reactor() override;
    kqueue_reactor(const kqueue_reactor&) = delete;
    kqueue_reactor& operator=(const kqueue_reactor&) = delete;

    void add(int fd, rtkit::io_token token) override;
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override;
    void remove(int fd, rtkit::io_token token) noexcept override;
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override;
    void wake() noexcept override;

  private:
    int wait(rtkit::duration timeout);
    void drain_wake() noexcept;

    int kq_ = -1;
    int wake_pipe_[2] = {-1, -1};  ///< only without EVFILT_USER
    std::atomic<bool> wake_pending_{false};
    std::vector<struct kevent> events_;
};

}  // namespace rtkit_kqueue
