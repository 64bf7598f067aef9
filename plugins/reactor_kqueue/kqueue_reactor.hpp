#pragma once
// rtkit_kqueue::kqueue_reactor: an edge-triggered kqueue readiness reactor.
#include <sys/event.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"

namespace rtkit_kqueue {

/// Readiness through kqueue: each descriptor gets an EVFILT_READ and an
/// EVFILT_WRITE filter with EV_CLEAR (edge-triggered, like the epoll reactor),
/// added once; events are latched in the registration until clear_ready().
/// Registrations live in a reactor_support::registration_table; the udata of
/// both filters is the io_token, so an event of a removed registration is
/// dropped even if its slot (and descriptor number) were reused.
/// wake() triggers an EVFILT_USER event (a self-pipe where there is none).
class kqueue_reactor final : public rtkit::reactor {
  public:
    explicit kqueue_reactor(const rtkit::plugin_options& options);
    ~kqueue_reactor() override;
    kqueue_reactor(const kqueue_reactor&) = delete;
    kqueue_reactor& operator=(const kqueue_reactor&) = delete;

    rtkit::io_token add(int fd, rtkit::interest what) override;
    void modify(rtkit::io_token token, rtkit::interest what) override;
    void remove(rtkit::io_token token) noexcept override;
    unsigned poll_ready(rtkit::io_token token, rtkit::interest want,
                        const rtkit::waker& w) override;
    void clear_ready(rtkit::io_token token, unsigned bits) noexcept override;
    std::size_t poll(rtkit::duration timeout) override;
    void wake() noexcept override;

  private:
    void drain_wake() noexcept;

    int kq_ = -1;
    int wake_pipe_[2] = {-1, -1};  ///< only without EVFILT_USER
    std::atomic<bool> wake_pending_{false};
    rtkit::reactor_support::registration_table<> table_;
    std::vector<struct kevent> events_;
};

}  // namespace rtkit_kqueue
