#pragma once
// rtkit_uring::uring_reactor: an io_uring reactor, readiness and completion based.
#include <liburing.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"
#include "uring_probe.hpp"

namespace rtkit_uring {

/// A reactor on one io_uring.
///
/// Readiness (rtkit::reactor): a registration costs nothing until a waker is
/// first armed on it; then one multishot POLL_ADD watches it for good, and its
/// completions are latched like epoll's edge-triggered events. Whole
/// operations (rtkit::completion_reactor_v1): accept, connect, recv, send,
/// read and write are submitted as they are, and their completions wake the
/// submitter. Every submission of a dispatch turn goes to the kernel with the
/// next poll(), in one io_uring_enter that also waits. wake() writes an
/// eventfd that a pending READ drains.
///
/// Completion user data: an io_completion's address (8-aligned, low bits 0),
/// or a tagged registration slot + generation, so a completion of a removed
/// registration (whose slot and descriptor number may be reused) is dropped.
class uring_reactor final : public rtkit::reactor, public rtkit::completion_reactor_v1 {
  public:
    explicit uring_reactor(const rtkit::plugin_options& options);
    explicit uring_reactor(const ring_settings& settings);
    ~uring_reactor() override;
    uring_reactor(const uring_reactor&) = delete;
    uring_reactor& operator=(const uring_reactor&) = delete;

    // rtkit::reactor
    rtkit::io_token add(int fd, rtkit::interest what) override;
    void modify(rtkit::io_token token, rtkit::interest what) override;
    void remove(rtkit::io_token token) noexcept override;
    unsigned poll_ready(rtkit::io_token token, rtkit::interest want,
                        const rtkit::waker& w) override;
    void clear_ready(rtkit::io_token token, unsigned bits) noexcept override;
    std::size_t poll(rtkit::duration timeout) override;
    void wake() noexcept override;
    void* query_interface(const char* name) noexcept override;

    // rtkit::completion_reactor_v1
    void submit(const rtkit::io_request& request, rtkit::io_completion& done) override;
    void cancel(rtkit::io_completion& done) noexcept override;

  private:
    /// What the reactor keeps per registration beyond the table's own fields.
    struct uring_state {
        bool poll_armed = false;  ///< a multishot POLL_ADD is live in the kernel
    };
    /// 29-bit generations: a poll's user data packs slot, generation and a 3-bit kind.
    using table = rtkit::reactor_support::registration_table<uring_state, 29>;

    /// A free submission entry, flushing the queue to the kernel when it is full.
    io_uring_sqe* next_sqe();
    void arm_poll(rtkit::io_token token, table::entry& r);
    void arm_wake_read();
    /// Handles one completion; returns 1 when it made a registration or an
    /// operation ready, 0 otherwise.
    std::size_t handle(const io_uring_cqe& cqe) noexcept;
    std::size_t reap() noexcept;

    io_uring ring_{};
    int wake_fd_ = -1;
    std::uint64_t wake_count_ = 0;  ///< the eventfd READ's buffer
    std::atomic<bool> wake_pending_{false};
    table table_;
};

}  // namespace rtkit_uring
