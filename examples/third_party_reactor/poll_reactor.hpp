#pragma once
// example_poll::poll_reactor: a portable readiness reactor on poll(2), built
// outside the rtkit tree against an installed rtkit (see README.md).
#include <poll.h>

#include <atomic>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <rtkit/plugin.hpp>
#include <rtkit/reactor.hpp>

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
/// Registrations live in a slab; an io_token is `index | generation << 32`,
/// and remove() bumps the slot's generation, so the token of a removed
/// registration never names the slot's next user, even when that user
/// registered a reused descriptor number.
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
    struct registration {
        std::uint32_t generation = 1;  ///< bumped on remove(); never 0, so no token is 0
        std::uint32_t next_free = 0;   ///< free-list link while unused
        bool in_use = false;
        std::uint8_t interest = 0;  ///< rtkit::interest bits
        unsigned latched = 0;       ///< rtkit::ready bits seen and not yet cleared
        int fd = -1;
        rtkit::waker reader;  ///< armed by poll_ready for read
        rtkit::waker writer;  ///< armed by poll_ready for write
    };

    /// True when `r`'s interest includes `direction` (read or write).
    static bool wants(const registration& r, rtkit::interest direction) noexcept;
    /// The registration a token names, or nullptr when the token is stale.
    registration* lookup(rtkit::io_token token) noexcept;
    /// Fills pollfds_/polled_ with what each registration still needs to learn.
    void build_poll_list();
    /// poll(2) over pollfds_, retrying EINTR with what is left of `timeout`.
    int wait(rtkit::duration timeout);
    void drain_wake_pipe() noexcept;

    int wake_read_ = -1;   ///< the self-pipe; pollfds_[0] always watches this end
    int wake_write_ = -1;  ///< written by wake() from any thread
    /// Set by the first wake() since the last drain; later wakes skip the write.
    std::atomic<bool> wake_pending_{false};
    std::vector<registration> slab_;
    std::uint32_t free_head_;
    /// Descriptors registered now: a second add() of one is refused (EEXIST),
    /// as epoll_ctl(ADD) does, so two owners never split its readiness.
    std::unordered_set<int> registered_fds_;
    /// poll()'s arguments, rebuilt for every call (kept to reuse the memory):
    /// pollfds_[i + 1] watches the registration named by polled_[i].
    std::vector<pollfd> pollfds_;
    std::vector<rtkit::io_token> polled_;
};

}  // namespace example_poll
