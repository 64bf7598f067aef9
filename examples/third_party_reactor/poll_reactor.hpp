#pragma once
// example_poll::poll_reactor: a portable readiness reactor on poll(2), built
// outside the rtkit tree against an installed rtkit (see README.md).
#include <poll.h>

#include <atomic>
#include <vector>

#include <rtkit/plugin.hpp>
#include <rtkit/reactor.hpp>

namespace example_poll {

/// Readiness through poll(2), which is level-triggered and keeps no state in
/// the kernel: every poll() passes the list of descriptors to watch.
///
/// rtkit keeps what was delivered (the readiness it latched) and calls
/// watch() when it waits for a direction it holds nothing of; watch() adds
/// that direction to those watched. So a direction is watched from watch()
/// until poll(2) reports it, then left out of the list: poll(2) reports a
/// ready descriptor again on every call, and asking again for what rtkit
/// already holds would make every wait return at once (a busy loop while,
/// say, a socket stays writable). A hang-up or an error answers waits in
/// both directions, so nothing of that descriptor is watched until the next
/// watch() (after an operation met EAGAIN, which forgets the latched bits).
///
/// wake() writes one byte to a non-blocking self-pipe whose read end is always
/// the first descriptor polled; a flag makes every wake after the first (until
/// the next poll drains the pipe) skip the write.
class poll_reactor final : public rtkit::reactor {
  public:
    explicit poll_reactor(const rtkit::plugin_options& options);
    ~poll_reactor() override;
    poll_reactor(const poll_reactor&) = delete;
    poll_reactor& operator=(const poll_reactor&) = delete;

    void add(int fd, rtkit::io_token token) override;
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override;
    void remove(int fd, rtkit::io_token token) noexcept override;
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override;
    void wake() noexcept override;

  private:
    /// One registered descriptor: its token and the poll(2) events still asked for.
    struct registration {
        rtkit::io_token token = 0;  ///< 0: no registration for this descriptor number
        short events = 0;
    };

    /// Fills pollfds_ with the wake pipe and every descriptor with something to watch.
    void build_poll_list();
    /// poll(2) over pollfds_, retrying EINTR with what is left of `timeout`.
    int wait(rtkit::duration timeout);
    void drain_wake_pipe() noexcept;

    int wake_read_ = -1;   ///< the self-pipe; pollfds_[0] always watches this end
    int wake_write_ = -1;  ///< written by wake() from any thread
    /// Set by the first wake() since the last drain; later wakes skip the write.
    std::atomic<bool> wake_pending_{false};
    /// By descriptor number (small, and reused by the system before it grows).
    std::vector<registration> by_fd_;
    /// poll()'s argument, rebuilt for every call (kept to reuse the memory).
    std::vector<pollfd> pollfds_;
};

}  // namespace example_poll
