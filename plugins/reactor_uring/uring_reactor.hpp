#pragma once
// rtkit_uring::uring_reactor: an io_uring reactor, readiness and completion based.
#include <liburing.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "provided_buffers.hpp"
#include "rtkit/completion_reactor.hpp"
#include "rtkit/plugin.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/reactor_support/registration_table.hpp"
#include "uring_probe.hpp"

namespace rtkit_uring {

/// A reactor on one io_uring.
///
/// Readiness (rtkit::reactor): each watch() arms a one-shot POLL_ADD for each
/// direction waited for and not yet watched, delivered once like an epoll
/// ONESHOT event (a multishot poll, shared by a multi-thread runtime's
/// workers, sometimes stopped reporting on Linux 6.18: see README.md). Whole
/// operations (rtkit::completion_reactor_v1): accept, connect, recv, send,
/// read and write are submitted as they are, and their completions wake the
/// submitter; except recv on a registered socket, which is served from one
/// multishot recv per registration into provided buffers (see below). Every submission of a
/// dispatch turn goes to the kernel with the next poll(), in one io_uring_enter that also waits.
/// wake() writes an eventfd that a pending READ drains.
///
/// The ring starts as its first driving thread's alone (SINGLE_ISSUER |
/// DEFER_TASKRUN: completions run in batches inside that thread's own
/// io_uring_enter), and the reactor offers rtkit::driver_handoff_v1: when the
/// kernel says another thread will drive it, share() cancels what is in
/// flight, moves to a ring any thread may enter, and resubmits (see
/// README.md). With sqpoll, or a kernel without those flags, the ring is
/// shared from the start. With single_issuer the ring is bound to its first
/// driver for good, and query_interface(thread_bound_reactor_name) says so to
/// the kernel, which then keeps every call on that thread.
///
/// Buffered recv: the first recv on a registered socket starts a multishot
/// recv (Linux 6.0+, probed at start) that receives into a ring of provided
/// buffers for as long as the registration lives; received chunks queue on
/// the registration and each recv request takes bytes from that queue. A
/// cancelled recv was only parked on the registration, so it consumes
/// nothing; remove() cancels the multishot recv and frees what was queued.
/// When buffers run short a recv goes to the kernel whole, as before.
///
/// The reactor keeps its own registration_table, by descriptor, for the state
/// above; each entry remembers the kernel's token to deliver readiness with.
/// Completion user data: an io_completion's address (8-aligned, low bits 0),
/// or a tagged slot + generation of that table, so a completion of a removed
/// registration (whose slot and descriptor number may be reused) is dropped.
class uring_reactor final : public rtkit::reactor,
                            public rtkit::completion_reactor_v1,
                            public rtkit::driver_handoff_v1 {
  public:
    explicit uring_reactor(const rtkit::plugin_options& options);
    explicit uring_reactor(const ring_settings& settings);
    ~uring_reactor() override;
    uring_reactor(const uring_reactor&) = delete;
    uring_reactor& operator=(const uring_reactor&) = delete;

    // rtkit::reactor
    void add(int fd, rtkit::io_token token) override;
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override;
    void remove(int fd, rtkit::io_token token) noexcept override;
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override;
    void wake() noexcept override;
    void* query_interface(const char* name) noexcept override;

    // rtkit::completion_reactor_v1
    void submit(const rtkit::io_request& request, rtkit::io_completion& done) override;
    void cancel(rtkit::io_completion& done) noexcept override;

    // rtkit::driver_handoff_v1
    void share() override;

  private:
    /// What the reactor keeps per registration beyond the table's own fields.
    struct uring_state {
        rtkit::io_token kernel_token = 0;  ///< what the kernel named it: readiness goes there
        /// ready::readable / ready::writable: a one-shot POLL_ADD for that
        /// direction is live in the kernel.
        unsigned polls_armed = 0;
        bool recv_armed = false;        ///< a multishot recv is live in the kernel
        bool recv_cancel_sent = false;  ///< ...and asked to stop (too much queued)
        bool fixed_file = false;        ///< installed in the registered-file slot of its index
        /// The multishot recv's last word, to hand to the next reader once the
        /// queue is empty: 0 end of stream, < 0 a negated errno; 1 none.
        int end = 1;
        /// Received chunks not yet read: provided buffer ids, linked through
        /// chunk_next_; the head's first head_offset bytes were read already.
        int head = -1;
        int tail = -1;
        unsigned queued = 0;
        unsigned head_offset = 0;
        /// ready::readable / ready::writable: a poll cancelled by share(), to
        /// arm again on the new ring.
        unsigned polls_to_rearm = 0;
        /// A recv parked until data comes (not in the kernel), and its buffer.
        rtkit::io_completion* reader = nullptr;
        void* reader_buffer = nullptr;
        unsigned reader_length = 0;

        /// A recv now would complete at once: bytes are queued, or the last word.
        bool has_result() const noexcept { return queued > 0 || end <= 0; }
    };
    /// 29-bit generations: a poll's user data packs slot, generation and a 3-bit kind.
    using table = rtkit::reactor_support::registration_table<uring_state, 29>;

    /// A free submission entry, flushing the queue to the kernel when it is
    /// full (and, with SQPOLL, waiting for the kernel thread to take entries).
    /// Throws std::system_error when the flush fails.
    io_uring_sqe* next_sqe();
    /// Before entering the kernel: on a ring of one issuer, the first caller
    /// enables the ring and becomes its only issuer; throws std::system_error
    /// (EEXIST, saying what to do) on any other thread.
    void claim_ring();
    /// Opens the ring (one issuer's, unless `shared`) and its registered files.
    void open(bool shared);
    /// share() on the issuer: cancels every request in the ring and reaps
    /// until none is left (operations then complete with -EAGAIN, polls are
    /// marked to arm again, multishot recvs end).
    void cancel_everything();
    /// Moves the provided buffers from `old` to the ring now open (or gives
    /// it fresh ones when `reuse` is false: requests of the old ring may
    /// still fill them).
    void move_buffers(io_uring& old, bool reuse);
    /// After share() (in a new ring, or back in the old one when the new
    /// could not be opened): arms the polls it cancelled again and starts
    /// parked readers again.
    void resume_registrations(bool new_ring);
    /// Arms a one-shot poll of `r` for `direction` (ready::readable or ready::writable).
    void arm_poll(rtkit::io_token token, table::entry& r, unsigned direction);
    /// The registered-file slot of registration `token` (its table index),
    /// queueing the update that installs its descriptor there first; -1 when
    /// it has none. Call it before taking the operation's submission entry.
    int fixed_file(rtkit::io_token token, table::entry& r);
    /// Queues the eventfd READ behind wake(); throws as next_sqe() does.
    void arm_wake_read();
    /// For poll() once the READ has completed: arms it again, and failing
    /// that (no submission entry) returns a bounded `timeout` (zero when a
    /// wake() came meanwhile), since no wake() would end the wait.
    rtkit::duration rearm_wake_read(rtkit::duration timeout) noexcept;

    // Buffered recv (multishot recv into provided buffers).
    void submit_buffered_recv(rtkit::io_token token, table::entry& r,
                              const rtkit::io_request& request, rtkit::io_completion& done);
    void arm_recv(rtkit::io_token token, table::entry& r);
    /// Starts a recv for the parked reader of `r` when nothing is queued and
    /// no recv is live: multishot, or a whole recv into its buffer when the
    /// provided buffers run short.
    void restart_reader(rtkit::io_token token, table::entry& r);
    /// Completes the parked reader of `r` from the queue (or with the recv's
    /// last word); false when there is nothing to give it.
    bool deliver(table::entry& r) noexcept;
    /// Moves up to `length` queued bytes of `st` into `buffer` and returns their
    /// count, or, with nothing queued, the recv's last word (0 or -errno).
    int take_queued(uring_state& st, void* buffer, unsigned length) noexcept;
    std::size_t handle_recv(const io_uring_cqe& cqe) noexcept;
    /// Gives every queued buffer of `r` back to the kernel.
    void drop_queue(table::entry& r) noexcept;
    /// Handles one completion; returns 1 when it completed an operation (and
    /// woke its submitter), 0 otherwise. Readiness goes to `sink`, or, when
    /// reaped outside poll() (by cancel(), with no sink), waits in the
    /// table's latched bits for the next poll().
    std::size_t handle(const io_uring_cqe& cqe, rtkit::readiness_sink* sink) noexcept;
    std::size_t reap(rtkit::readiness_sink* sink) noexcept;
    /// Delivers the readiness that cancel() reaped and kept.
    void deliver_kept(rtkit::readiness_sink& sink) noexcept;

    /// How threads may drive the ring.
    enum class ring_mode : std::uint8_t {
        first_thread,  ///< its first driver's alone until share()
        bound,         ///< its first driver's for good (single_issuer)
        shared,        ///< any thread's, one at a time
    };

    io_uring ring_{};
    ring_settings settings_;
    ring_mode mode_ = ring_mode::shared;
    /// Whole operations in the kernel (an io_completion's address as user
    /// data), for share() to know when all are back.
    unsigned operations_in_flight_ = 0;
    bool sharing_ = false;  ///< inside share(): cancelled requests are handed on
    /// The ring's only issuer once enabled, by a number no other thread of the
    /// process ever has (a std::thread::id may be reused by a new thread,
    /// which the kernel would refuse), or 0. Atomic for the first claim and
    /// for a thread that breaks the one-thread rule.
    std::atomic<std::uint64_t> issuer_{0};
    int wake_fd_ = -1;
    std::uint64_t wake_count_ = 0;  ///< the eventfd READ's buffer
    /// Set by the wake() that writes the eventfd; the wakes after it skip the
    /// write until the READ's completion (or rearm_wake_read) clears it.
    std::atomic<bool> wake_pending_{false};
    /// The READ is queued or in the kernel; false from its completion until
    /// poll() re-arms it.
    bool wake_read_armed_ = false;
    unsigned failing_wake_rearms_ = 0;  ///< ring_settings::fail_wake_rearms still to inject
    table table_;
    bool readiness_kept_ = false;  ///< some entry's latched bits await deliver_kept()
    std::unique_ptr<provided_buffers> buffers_ = std::make_unique<provided_buffers>();
    /// Buffers of a ring another thread abandoned: kept until the reactor
    /// goes, since requests of that ring may still fill them.
    std::vector<std::unique_ptr<provided_buffers>> retired_buffers_;
    bool multishot_recv_ = false;         ///< buffered recv is on (probe passed)
    std::vector<int> chunk_next_;         ///< per buffer id: the next in its queue, or -1
    std::vector<unsigned> chunk_length_;  ///< per buffer id: bytes received into it
    /// Registered files: registration slot i uses file slot i when i <
    /// fixed_slots_. The kernel reads an update's descriptor when the update
    /// is submitted, so each slot's value lives here, at a stable address.
    unsigned fixed_slots_ = 0;
    std::unique_ptr<int[]> fixed_fd_values_;
};

}  // namespace rtkit_uring
