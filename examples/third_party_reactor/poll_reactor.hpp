#pragma once
// example_poll::poll_reactor: a portable readiness reactor on poll(2), built
// outside the rtkit tree against an installed rtkit (see README.md).
#include <poll.h>

#include <atomic>
#include <vector>

#include <rtkit/plugin.hpp>
#include <rtkit/reactor.hpp>
#include <rtkit/reactor_support/registration_table.hpp>

namespace example_poll {

/// Readiness through poll(2), which is level-triggered and keeps no state in
/// the kernel: every poll() passes the whole list of descriptors.
///
/// Each registration latches the readiness poll(2) reported (readable,
/// writable, hangup, error) until clear_ready(), as rtkit::reactor requires.
/// Because poll(2) reports a ready descriptor again on every call, a direction
/// already latched is not asked for again: otherwise one readable socket whose
/// task is busy would make every wait return at once (a busy loop).
///
/// Registrations, tokens and the latching rules come from rtkit's
/// registration_table (generation-checked tokens, so the token of a removed
/// registration never names a later one; a second add of a descriptor is
/// refused with EEXIST); this file only talks to poll(2).
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

    rtkit::io_token add(int fd, rtkit::interest what) override;
    void modify(rtkit::io_token token, rtkit::interest what) override;
    void remove(rtkit::io_token token) noexcept override;
    unsigned poll_ready(rtkit::io_token token, rtkit::interest want,
                        const rtkit::waker& w) override;
    void clear_ready(rtkit::io_token token, unsigned bits) noexcept override;
    std::size_t poll(rtkit::duration timeout) override;
    void wake() noexcept override;

  private:
    /// Fills pollfds_/polled_ with what each registration still needs to learn.
    void build_poll_list();
    /// poll(2) over pollfds_, retrying EINTR with what is left of `timeout`.
    int wait(rtkit::duration timeout);
    void drain_wake_pipe() noexcept;

    int wake_read_ = -1;   ///< the self-pipe; pollfds_[0] always watches this end
    int wake_write_ = -1;  ///< written by wake() from any thread
    /// Set by the first wake() since the last drain; later wakes skip the write.
    std::atomic<bool> wake_pending_{false};
    rtkit::reactor_support::registration_table<> table_;
    /// poll()'s arguments, rebuilt for every call (kept to reuse the memory):
    /// pollfds_[i + 1] watches the registration named by polled_[i].
    std::vector<pollfd> pollfds_;
    std::vector<rtkit::io_token> polled_;
};

}  // namespace example_poll
