#pragma once
// rtkit::reactor: the I/O readiness interface that reactor plugins implement.
#include <cstdint>

#include "rtkit/plugin_object.hpp"
#include "rtkit/time.hpp"
#include "rtkit/waker.hpp"

namespace rtkit {

/// What a registration waits for. Values combine as bit flags.
enum class interest : std::uint8_t { read = 1, write = 2, read_write = 3 };

/// Readiness bits reported by reactor::poll_ready.
namespace ready {
inline constexpr unsigned readable = 1;
inline constexpr unsigned writable = 2;
inline constexpr unsigned hangup = 4;  ///< peer closed (EPOLLHUP / EPOLLRDHUP / EV_EOF)
inline constexpr unsigned error = 8;   ///< an error is pending on the descriptor
}  // namespace ready

/// Identifies one registration. Tokens are generation-checked: a token of a
/// removed registration never aliases a later one, even for a reused descriptor.
using io_token = std::uint64_t;

/// A readiness reactor: register descriptors, wait for events, fire wakers.
///
/// Threads: one owner (the worker that created it) calls every method except
/// wake(), which any thread may call. Nothing here is re-entrant: a waker fired
/// from poll() must not call back into the reactor (kernel wakers only enqueue).
/// Failures throw std::system_error carrying the errno.
///
/// Readiness is latched: an event that arrives while no waker is armed is kept
/// until clear_ready(), so edge-triggered backends lose nothing. The kernel's
/// I/O loop is: try the syscall; on EAGAIN clear_ready() the bit it needed, then
/// poll_ready() with the task's waker; suspend if it returned 0.
class reactor : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_REACTOR, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Owner thread. Starts watching `fd` for `what`. Does not take ownership of
    /// the descriptor. Throws std::system_error (EBADF, EEXIST, ENOMEM, ...).
    virtual io_token add(int fd, interest what) = 0;

    /// Owner thread. Changes what `token` waits for. Latched bits are kept.
    virtual void modify(io_token token, interest what) = 0;

    /// Owner thread. Stops watching; armed wakers are dropped without a wake and
    /// no event already fetched for this registration is delivered later. Call it
    /// before closing the descriptor. A stale token is ignored.
    virtual void remove(io_token token) noexcept = 0;

    /// Owner thread. Returns the latched readiness bits that intersect `want`
    /// (plus hangup and error, which are always reported). When that is 0, stores
    /// a copy of `w` for `want` (replacing an earlier one) to be woken once, and
    /// returns 0. Never blocks. A stale token returns ready::error.
    virtual unsigned poll_ready(io_token token, interest want, const waker& w) = 0;

    /// Owner thread. Forgets latched `bits` after an operation hit EAGAIN.
    virtual void clear_ready(io_token token, unsigned bits) noexcept = 0;

    /// Owner thread. Waits up to `timeout` for events (negative: no limit, zero:
    /// do not block), latches them and wakes the wakers armed for them. Returns
    /// early after wake(). Returns how many registrations became ready.
    virtual std::size_t poll(duration timeout) = 0;

    /// Any thread. Makes a blocking poll() return promptly, or the next one
    /// return at once. Many wakes before one poll coalesce. Never throws.
    virtual void wake() noexcept = 0;
};

}  // namespace rtkit
