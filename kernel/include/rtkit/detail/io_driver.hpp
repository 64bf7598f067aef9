#pragma once
// rtkit::detail::io_driver: the kernel's side of a reactor plugin.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

/// The kernel's side of the reactor: every registration with its interest,
/// latched readiness and armed wakers (the rules of rtkit/reactor.hpp), over the
/// reactor plugin that watches the descriptors and delivers what it sees. One
/// per runtime. One thread at a time calls every method but wake() (the
/// thread driving the worker, or, in the multi-thread flavor, whoever holds
/// the worker group's I/O lock); wake() may be called from any thread.
class io_driver final : public readiness_sink {
  public:
    /// `name` names the plugin in errors, e.g. "epoll (/path/rtkit_reactor_epoll.so)".
    explicit io_driver(std::shared_ptr<reactor> backend, std::string name = "the reactor");
    io_driver(const io_driver&) = delete;
    io_driver& operator=(const io_driver&) = delete;

    /// Registers `fd` for `what`. Throws std::system_error: EMFILE beyond the
    /// backend's declared limits, EBADF for a negative or closed descriptor,
    /// EEXIST when `fd` is registered already, or the backend's own error.
    io_token add(int fd, interest what);
    /// Changes what `token` waits for; latched bits are kept. ENOENT when stale.
    void modify(io_token token, interest what);
    /// Ends the registration: its wakers are dropped without a wake, and
    /// nothing is delivered for it afterwards. A stale token is ignored.
    void remove(io_token token) noexcept;

    /// The latched readiness that answers `want` (hang-up and error always
    /// do). When there is none, arms a copy of `w` for `want` (replacing an
    /// earlier one), asks the backend to watch, and returns 0. A stale token
    /// returns ready::error.
    unsigned poll_ready(io_token token, interest want, const waker& w) {
        entry* r = table_.find(token);
        if (!r) return ready::error;
        if (const unsigned bits = table::latched_for(*r, want)) return bits;
        backend_->watch(r->fd, token, want);  // first: it may throw
        table::arm(*r, want, w);
        return 0;
    }
    /// Drops the wakers armed for `want` without waking them.
    void withdraw(io_token token, interest want) noexcept;
    /// Forgets latched `bits` after an operation met EAGAIN.
    void clear_ready(io_token token, unsigned bits) noexcept { table_.clear_ready(token, bits); }

    /// Waits up to `timeout` in the backend (negative: no limit), latching what
    /// it delivers and waking the wakers armed for it. Returns how many
    /// registrations became ready plus how many completions woke a task.
    std::size_t poll(duration timeout);
    /// Any thread: makes a blocking poll() return.
    void wake() noexcept { backend_->wake(); }

    /// The plugin object, for its extension interfaces (query_interface).
    reactor& backend() const noexcept { return *backend_; }

    /// True when only one thread may ever drive the backend
    /// (thread_bound_reactor_name).
    bool thread_bound() const noexcept { return thread_bound_; }
    /// Whether the calling thread may drive the backend: always, unless it is
    /// thread-bound; then the first thread to ask becomes its only driver.
    bool claim_for_this_thread() noexcept;

  private:
    using table = reactor_support::registration_table<>;
    using entry = table::entry;

    void deliver(io_token token, unsigned bits) noexcept override;
    [[noreturn]] void refuse(const std::string& why) const;

    std::shared_ptr<reactor> backend_;
    std::string name_;
    reactor_limits limits_;
    const bool thread_bound_;
    /// The one driver of a thread-bound backend once claimed (a number no
    /// other thread of the process ever has, unlike a std::thread::id, which
    /// a new thread may reuse), or 0.
    std::atomic<std::uint64_t> home_{0};
    table table_;
    std::size_t became_ready_ = 0;  ///< counted by deliver() during one poll()
};

}  // namespace rtkit::detail
