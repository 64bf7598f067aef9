#pragma once
// rtkit::completion_reactor_v1: the completion-based extension of a reactor.
// A reactor that can take whole I/O operations (io_uring) exposes it through
// reactor::query_interface(completion_reactor_v1_name); the kernel's net layer
// then submits operations instead of waiting for readiness.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

#include "rtkit/waker.hpp"

namespace rtkit {

/// The versioned name under which a reactor returns its completion_reactor_v1.
inline constexpr const char* completion_reactor_v1_name = "rtkit.completion.v1";

/// The operations a completion reactor performs whole.
enum class io_opcode : std::uint8_t { accept, connect, recv, send, read, write };

/// One operation to perform. Everything it points to (buffer, address, length)
/// must stay valid until the operation's completion has been reaped.
struct io_request {
    io_opcode op = io_opcode::read;
    int fd = -1;
    void* buffer = nullptr;  ///< recv/read: filled; send/write: sent
    std::size_t length = 0;
    /// accept: filled with the peer's address (may be null); connect: the target.
    sockaddr* address = nullptr;
    /// accept: in/out length of `address` (may be null); connect: unused.
    socklen_t* address_length = nullptr;
    /// connect: the length of `address`.
    socklen_t address_size = 0;
    /// recv/send: MSG_* flags; accept: SOCK_* flags of the new descriptor.
    int flags = 0;
};

/// Where a submitted operation's result lands. Owned by the submitter, and must
/// not move or be destroyed while `pending` is true.
struct io_completion {
    /// The operation's result once `pending` is false: >= 0 as the syscall
    /// would return it (bytes, or the accepted descriptor), < 0 a negated errno.
    int result = 0;
    /// True from submit() until the completion has been reaped by poll() or cancel().
    bool pending = false;
    /// Woken (once) when the completion is reaped by poll().
    waker on_complete;
};

/// Completion-based I/O, obtained from reactor::query_interface.
///
/// Threads: the reactor's owner only (the worker's holder). Completions are
/// reaped by the reactor's poll(), which then wakes `on_complete`; submissions
/// made during a dispatch turn are batched and reach the kernel with the next
/// poll(). A reactor that already holds the result (bytes it received ahead)
/// may complete a submission inside submit() instead, without waking anyone.
/// The reactor never touches an io_completion after it completed, so the
/// submitter may reuse or free it then.
class completion_reactor_v1 {
  public:
    /// Owner thread. Queues `request`; `done.pending` becomes true and its
    /// result arrives later. Or completes it at once: `done.pending` is then
    /// false on return, `done.result` holds the result and `on_complete` is
    /// not woken. Does not block. Throws std::system_error when the submission
    /// queue is full and cannot be flushed.
    virtual void submit(const io_request& request, io_completion& done) = 0;

    /// Owner thread. Cancels the operation of `done` (if still pending) and
    /// returns only once its completion was reaped: afterwards the kernel no
    /// longer uses its buffer. `done.on_complete` is dropped without a wake.
    /// `done.result` is then -ECANCELED, or the real result when the operation
    /// completed first. Blocks only for as long as the kernel takes to finish
    /// the cancellation (immediate for sockets and pipes). Never throws.
    virtual void cancel(io_completion& done) noexcept = 0;

  protected:
    ~completion_reactor_v1() = default;
};

}  // namespace rtkit
