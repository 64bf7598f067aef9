#include "uring_reactor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "rtkit/reactor_support/thread_number.hpp"

namespace rtkit_uring {
namespace {

/// The low three bits of a completion's user data say what it belongs to. An
/// io_completion is at least 8-aligned, so its address has them clear.
enum user_data_kind : std::uint64_t {
    kind_operation = 0,   ///< an io_completion*
    kind_poll = 1,        ///< a registration's one-shot read poll: slot << 32 | generation << 3
    kind_wake = 2,        ///< the eventfd READ behind wake()
    kind_ignore = 3,      ///< cancel and poll-remove requests: nothing waits for them
    kind_recv = 4,        ///< a registration's multishot recv, tagged like kind_poll
    kind_poll_write = 5,  ///< a registration's one-shot write poll, tagged like kind_poll
};

/// While a recv is parked on a registration (not in the kernel), its
/// io_completion's result (unspecified until pending is false) holds
/// parked_base - slot, below every negated errno, so cancel() finds it.
constexpr int parked_base = -(1 << 20);

/// A registration with this many received buffers unread stops its
/// multishot recv, so one idle reader cannot take every provided buffer.
constexpr unsigned max_queued_buffers = 16;

/// A registration's user data: its token (slot | 29-bit generation << 32)
/// moved so that the low three bits hold the kind.
constexpr std::uint64_t tagged(rtkit::io_token token, user_data_kind kind) {
    return (std::uint64_t{static_cast<std::uint32_t>(token)} << 32) | ((token >> 32) << 3) | kind;
}
/// The token back from a registration's user data.
constexpr rtkit::io_token token_of(std::uint64_t data) {
    return (data >> 32) | (((data >> 3) & ((1u << 29) - 1)) << 32);
}

/// The one-shot poll of a direction (ready::readable or ready::writable).
constexpr user_data_kind poll_kind(unsigned direction) {
    return direction == rtkit::ready::writable ? kind_poll_write : kind_poll;
}

unsigned ready_bits(unsigned events) {
    unsigned bits = 0;
    if (events & POLLIN) bits |= rtkit::ready::readable;
    if (events & POLLOUT) bits |= rtkit::ready::writable;
    if (events & (POLLRDHUP | POLLHUP)) bits |= rtkit::ready::hangup;
    if (events & POLLERR) bits |= rtkit::ready::error;
    return bits;
}

ring_settings settings_from(const rtkit::plugin_options& options) {
    ring_settings s;
    s.entries = static_cast<unsigned>(options.get_int("entries"));
    s.sqpoll = options.get_bool("sqpoll");
    s.single_issuer = options.get_bool("single_issuer");
    s.fail_probe_errno = static_cast<int>(options.get_int("test_fail_probe_errno"));
    s.fail_wake_rearms = static_cast<unsigned>(options.get_int("test_fail_wake_rearms"));
    s.recv_buffers = static_cast<unsigned>(options.get_int("recv_buffers"));
    s.recv_buffer_size = static_cast<unsigned>(options.get_int("recv_buffer_size"));
    s.fixed_files = static_cast<unsigned>(options.get_int("fixed_files"));
    return s;
}

/// An update that empties a registered-file slot reads its descriptor here.
int no_file = -1;

/// Makes a prepared `sqe` name registered-file slot `index` instead of a descriptor.
void set_fixed_file(io_uring_sqe* sqe, int index) {
    if (index < 0) return;
    sqe->fd = index;
    sqe->flags |= IOSQE_FIXED_FILE;
}

/// One kernel I/O length field is 32 bits; larger requests complete short.
unsigned clamp_length(std::size_t n) {
    return n > (1u << 30) ? (1u << 30) : static_cast<unsigned>(n);
}

}  // namespace

uring_reactor::uring_reactor(const rtkit::plugin_options& options)
    : uring_reactor(settings_from(options)) {}

uring_reactor::uring_reactor(const ring_settings& settings) : settings_(settings) {
    // Blocking on purpose: io_uring answers a READ of an O_NONBLOCK file with
    // EAGAIN instead of waiting. wake() never blocks on it (the counter would
    // have to reach 2^64 - 2).
    wake_fd_ = eventfd(0, EFD_CLOEXEC);
    if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    // Cheapest first: a ring of one issuer, shared later if another thread
    // comes (share()); SQPOLL's kernel thread rules that out.
    mode_ = settings.single_issuer ? ring_mode::bound
            : settings.sqpoll      ? ring_mode::shared
                                   : ring_mode::first_thread;
    try {
        try {
            open(mode_ == ring_mode::shared);
        } catch (const std::system_error& e) {
            // A kernel without SINGLE_ISSUER | DEFER_TASKRUN (before 6.1).
            if (mode_ != ring_mode::first_thread || e.code().value() != EINVAL) throw;
            mode_ = ring_mode::shared;
            open(true);
        }
    } catch (...) {
        close(wake_fd_);
        throw;
    }
    arm_wake_read();
    // Buffered recv is an optimisation: without buffer rings (Linux 5.19) or
    // multishot recv (6.0) every recv goes to the kernel whole.
    if (settings.recv_buffers > 0 &&
        buffers_->setup(ring_, settings.recv_buffers, settings.recv_buffer_size) == 0 &&
        multishot_recv_works()) {
        multishot_recv_ = true;
        chunk_next_.assign(buffers_->count(), -1);
        chunk_length_.assign(buffers_->count(), 0);
    }
    failing_wake_rearms_ = settings.fail_wake_rearms;  // only re-arms fail, not the first arm
}

uring_reactor::~uring_reactor() {
    // Ends every request still in the kernel; nothing of ours is touched after
    // (the provided buffers are unmapped after this, by their destructor).
    io_uring_queue_exit(&ring_);
    close(wake_fd_);
}

void uring_reactor::open(bool shared) {
    ring_settings settings = settings_;
    settings.single_issuer = !shared;
    open_ring(ring_, settings);
    // Registered files spare every operation the kernel's file lookup and
    // reference count. An optimisation, so off where it cannot work: with
    // SQPOLL (its thread reads an update's descriptor when it likes), without
    // CQE_SKIP_SUCCESS (Linux 5.17: an update's completion would end a poll()
    // early), or where the table cannot be registered. The kernel caps the
    // table at the open-file limit.
    unsigned slots =
        settings.sqpoll || !(ring_.features & IORING_FEAT_CQE_SKIP) ? 0 : settings.fixed_files;
    rlimit open_files{};
    if (getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur < slots)
        slots = static_cast<unsigned>(open_files.rlim_cur);
    fixed_slots_ = 0;
    if (slots > 0 && io_uring_register_files_sparse(&ring_, slots) == 0) {
        fixed_slots_ = slots;
        fixed_fd_values_ = std::make_unique<int[]>(slots);
    }
}

void uring_reactor::share() {
    if (mode_ != ring_mode::first_thread) return;
    // A ring no thread entered yet is this thread's now.
    if (issuer_.load(std::memory_order_relaxed) == 0) claim_ring();
    const bool mine =
        issuer_.load(std::memory_order_relaxed) == rtkit::reactor_support::this_thread_number();
    if (!mine && (table_.size() > 0 || operations_in_flight_ > 0))
        throw std::system_error(
            EBUSY, std::generic_category(),
            "the uring reactor's ring belongs to the thread that first drove it, which left "
            "requests in it; only that thread can hand them over");
    if (mine) cancel_everything();
    // Only the issuer knows its requests are all back; another thread leaves
    // the old ring's buffers to it. (The old ring's wake-up READ cannot eat a
    // later wake(): under DEFER_TASKRUN it would read only inside its
    // issuer's io_uring_enter, which never comes, and closing the ring
    // cancels it.)
    io_uring old = ring_;
    const unsigned old_slots = fixed_slots_;
    try {
        open(true);
    } catch (...) {
        ring_ = old;
        resume_registrations(false);
        throw;
    }
    move_buffers(old, mine);
    // The old ring's registered files keep their sockets open until the
    // kernel has torn it down, later: let go of them now, so that a close
    // closes (the issuer can; another thread's ring has none in use).
    if (mine && old_slots > 0) io_uring_unregister_files(&old);
    io_uring_queue_exit(&old);
    mode_ = ring_mode::shared;
    wake_read_armed_ = false;  // the next poll() arms it in the new ring
    resume_registrations(true);
}

void uring_reactor::resume_registrations(bool new_ring) {
    for (std::uint32_t index = 0; index < table_.slot_count(); ++index) {
        table::entry* r = table_.find_slot(index);
        if (!r) continue;
        uring_state& st = r->extra;
        if (new_ring) st.fixed_file = false;  // the old ring's table went with it
        const rtkit::io_token token = table_.token_of_fd(r->fd);
        try {
            for (const unsigned direction : {rtkit::ready::readable, rtkit::ready::writable})
                if (st.polls_to_rearm & direction) arm_poll(token, *r, direction);
            restart_reader(token, *r);
        } catch (...) {
            // No submission entry even after a flush: deliver what the waiters
            // wait for as if it came, so they try their syscall and wait again,
            // and let a parked reader finish on readiness.
            r->latched |= st.polls_to_rearm;
            readiness_kept_ = readiness_kept_ || st.polls_to_rearm != 0;
            if (rtkit::io_completion* done =
                    st.recv_armed ? nullptr : std::exchange(st.reader, nullptr)) {
                done->result = -EAGAIN;
                done->pending = false;
                done->on_complete.wake();
            }
        }
        st.polls_to_rearm = 0;
    }
}

void uring_reactor::cancel_everything() {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
    io_uring_sqe_set_data64(sqe, kind_ignore);
    // The wake-up READ waits for the eventfd in a kernel worker: a count
    // completes it, whatever its cancellation does.
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
    const auto anything_armed = [this] {
        for (std::uint32_t index = 0; index < table_.slot_count(); ++index)
            if (const table::entry* r = table_.find_slot(index))
                if (r->extra.polls_armed || r->extra.recv_armed) return true;
        return false;
    };
    sharing_ = true;
    while (operations_in_flight_ > 0 || wake_read_armed_ || anything_armed()) {
        const int rc = io_uring_submit_and_wait(&ring_, 1);
        if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EBUSY && rc != -EAGAIN) {
            sharing_ = false;
            throw std::system_error(-rc, std::generic_category(), "io_uring_enter");
        }
        reap(nullptr);  // readiness met on the way waits for the next poll()
    }
    sharing_ = false;
}

void uring_reactor::move_buffers(io_uring& old, bool reuse) {
    if (!multishot_recv_) return;
    int rc = 0;
    if (reuse) {
        // Every buffer but those holding bytes no reader took yet.
        std::vector<bool> held(buffers_->count(), false);
        for (std::uint32_t index = 0; index < table_.slot_count(); ++index)
            if (const table::entry* r = table_.find_slot(index))
                for (int id = r->extra.head; id >= 0;
                     id = chunk_next_[static_cast<std::size_t>(id)])
                    held[static_cast<std::size_t>(id)] = true;
        rc = buffers_->move_to(old, ring_, held);
    } else {
        retired_buffers_.push_back(std::move(buffers_));
        buffers_ = std::make_unique<provided_buffers>();
        rc = buffers_->setup(ring_, settings_.recv_buffers, settings_.recv_buffer_size);
    }
    // The new ring took none: every recv goes to the kernel whole from now on.
    if (rc < 0) multishot_recv_ = false;
}

void uring_reactor::claim_ring() {
    if (mode_ == ring_mode::shared) return;
    const std::uint64_t me = rtkit::reactor_support::this_thread_number();
    std::uint64_t issuer = 0;
    if (issuer_.compare_exchange_strong(issuer, me, std::memory_order_relaxed)) {
        // liburing 2.3 declares io_uring_enable_rings() but does not export it.
        if (syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr,
                    0) < 0) {
            const int error = errno;
            issuer_.store(0, std::memory_order_relaxed);
            throw std::system_error(error, std::generic_category(),
                                    "io_uring_register(ENABLE_RINGS)");
        }
        return;
    }
    if (issuer != me)
        throw std::system_error(
            EEXIST, std::generic_category(),
            mode_ == ring_mode::bound
                ? "the uring reactor has single_issuer = true: its ring belongs to the thread that "
                  "first drove it, and another thread called it; drive the runtime from that "
                  "thread only (if it has ended, the runtime cannot run I/O any more), or drop "
                  "[reactor.uring] single_issuer"
                : "the uring reactor's ring belongs to the thread that first drove it, and "
                  "another thread called it before share()");
}

io_uring_sqe* uring_reactor::next_sqe() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe) return sqe;
    claim_ring();
    const int rc = io_uring_submit(&ring_);  // the queue is full: hand it over now
    if (rc < 0) throw std::system_error(-rc, std::generic_category(), "io_uring_submit");
    sqe = io_uring_get_sqe(&ring_);
    // With SQPOLL the kernel thread takes the entries when it runs, not in
    // io_uring_submit: wait until it has taken some (it never stops while
    // entries are there).
    while (!sqe && (ring_.flags & IORING_SETUP_SQPOLL)) {
        const int waited = io_uring_sqring_wait(&ring_);
        if (waited < 0 && waited != -EINTR)
            throw std::system_error(-waited, std::generic_category(), "io_uring_sqring_wait");
        sqe = io_uring_get_sqe(&ring_);
    }
    if (!sqe) throw std::system_error(EBUSY, std::generic_category(), "io_uring submission queue");
    return sqe;
}

void uring_reactor::arm_wake_read() {
    if (failing_wake_rearms_ > 0) {  // fault injection: as if next_sqe() failed
        --failing_wake_rearms_;
        throw std::system_error(EBUSY, std::generic_category(),
                                "io_uring submission queue (test_fail_wake_rearms)");
    }
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_read(sqe, wake_fd_, &wake_count_, sizeof wake_count_, 0);
    io_uring_sqe_set_data64(sqe, kind_wake);
    wake_read_armed_ = true;
}

rtkit::duration uring_reactor::rearm_wake_read(rtkit::duration timeout) noexcept {
    try {
        arm_wake_read();
        return timeout;  // a wake() since the READ completed makes it complete at once
    } catch (...) {
    }
    // No entry even after a flush: a wait now would not end for a wake(). Return at once
    // for one that came already (its count waits in the eventfd), otherwise
    // wait briefly, so that the next poll() tries again.
    if (wake_pending_.exchange(false, std::memory_order_acq_rel)) return rtkit::duration{0};
    constexpr rtkit::duration retry_after = std::chrono::milliseconds(1);
    return timeout.count() < 0 ? retry_after : std::min(timeout, retry_after);
}

int uring_reactor::fixed_file(rtkit::io_token token, table::entry& r) {
    const std::uint32_t index = table::index_of(token);
    if (index >= fixed_slots_) return -1;
    if (!r.extra.fixed_file) {
        // Submitted before the operations that use it, and so run before them.
        fixed_fd_values_[index] = r.fd;
        io_uring_sqe* update = next_sqe();
        io_uring_prep_files_update(update, &fixed_fd_values_[index], 1, static_cast<int>(index));
        io_uring_sqe_set_data64(update, kind_ignore);
        update->flags |= IOSQE_CQE_SKIP_SUCCESS;
        r.extra.fixed_file = true;
    }
    return static_cast<int>(index);
}

void uring_reactor::arm_poll(rtkit::io_token token, table::entry& r, unsigned direction) {
    const int file = fixed_file(token, r);
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_poll_add(sqe, r.fd,
                           direction == rtkit::ready::writable ? POLLOUT : POLLIN | POLLRDHUP);
    set_fixed_file(sqe, file);
    io_uring_sqe_set_data64(sqe, tagged(token, poll_kind(direction)));
    r.extra.polls_armed |= direction;
}

void uring_reactor::add(int fd, rtkit::io_token token) {
    // Registration is lazy (no poll until the kernel waits on it), so check
    // the descriptor here to fail where epoll_ctl would.
    if (fcntl(fd, F_GETFD) < 0)
        throw std::system_error(errno, std::generic_category(),
                                "io_uring reactor add(fd " + std::to_string(fd) + ")");
    const rtkit::io_token own = table_.insert(fd, rtkit::interest::read_write);
    table_.find(own)->extra.kernel_token = token;
}

void uring_reactor::watch(int fd, rtkit::io_token, rtkit::interest want) {
    const rtkit::io_token own = table_.token_of_fd(fd);
    table::entry* r = own ? table_.find(own) : nullptr;
    if (!r) return;
    for (const unsigned direction : {rtkit::ready::readable, rtkit::ready::writable})
        if ((static_cast<unsigned>(want) & direction) && !(r->extra.polls_armed & direction))
            arm_poll(own, *r, direction);
}

void uring_reactor::remove(int fd, rtkit::io_token) noexcept {
    const rtkit::io_token token = table_.token_of_fd(fd);
    table::entry* r = token ? table_.find(token) : nullptr;
    if (!r) return;
    uring_state& st = r->extra;
    if (st.polls_armed || st.recv_armed || st.fixed_file) {
        // The polls, the recv and the registered-file slot hold a reference to
        // the file: end them now, so that the caller's close() really closes
        // (the peer sees it at once). The last completions of the polls and
        // the recv fail the generation check and are dropped.
        try {
            for (const unsigned direction : {rtkit::ready::readable, rtkit::ready::writable}) {
                if (!(st.polls_armed & direction)) continue;
                io_uring_sqe* sqe = next_sqe();
                io_uring_prep_poll_remove(sqe, tagged(token, poll_kind(direction)));
                io_uring_sqe_set_data64(sqe, kind_ignore);
            }
            if (st.recv_armed) {
                io_uring_sqe* sqe = next_sqe();
                io_uring_prep_cancel64(sqe, tagged(token, kind_recv), 0);
                io_uring_sqe_set_data64(sqe, kind_ignore);
            }
            if (st.fixed_file) {
                io_uring_sqe* sqe = next_sqe();
                io_uring_prep_files_update(sqe, &no_file, 1,
                                           static_cast<int>(table::index_of(token)));
                io_uring_sqe_set_data64(sqe, kind_ignore);
                sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
            }
            claim_ring();
            io_uring_submit(&ring_);
        } catch (...) {
            // Only the early release is lost; stale completions are still dropped.
        }
    }
    drop_queue(*r);
    if (rtkit::io_completion* done = std::exchange(st.reader, nullptr)) {
        // A recv still parked: its owner broke the rule (cancel it first), but
        // must not wait forever.
        done->result = -ECANCELED;
        done->pending = false;
        done->on_complete.wake();
    }
    table_.erase(token);
}

std::size_t uring_reactor::handle(const io_uring_cqe& cqe, rtkit::readiness_sink* sink) noexcept {
    const std::uint64_t data = cqe.user_data;
    switch (data & 7) {
        case kind_operation: {
            auto* done = reinterpret_cast<rtkit::io_completion*>(data);
            --operations_in_flight_;
            // Cancelled by share(): its submitter finishes it on readiness.
            done->result = sharing_ && cqe.res == -ECANCELED ? -EAGAIN : cqe.res;
            done->pending = false;
            done->on_complete.wake();
            return 1;
        }
        case kind_poll:
        case kind_poll_write: {
            table::entry* r = table_.find(token_of(data));
            if (!r) return 0;  // removed after the kernel posted it
            const unsigned direction =
                (data & 7) == kind_poll_write ? rtkit::ready::writable : rtkit::ready::readable;
            r->extra.polls_armed &= ~direction;
            if (cqe.res == -ECANCELED) {
                if (sharing_) r->extra.polls_to_rearm |= direction;  // the kernel still waits
                return 0;
            }
            const unsigned bits =
                cqe.res < 0 ? rtkit::ready::error : ready_bits(static_cast<unsigned>(cqe.res));
            if (sink) {
                sink->deliver(r->extra.kernel_token, bits);
            } else {
                r->latched |= bits;
                readiness_kept_ = true;
            }
            return 0;
        }
        case kind_recv:
            return handle_recv(cqe);
        case kind_wake:
            // acq_rel: a wake() that saw the flag still set published its work
            // before this exchange, and this poll returns to the caller anyway.
            wake_pending_.exchange(false, std::memory_order_acq_rel);
            // The next poll() re-arms it before it waits; wakes meanwhile
            // write the eventfd, whose count the new READ then takes at once.
            wake_read_armed_ = false;
            return 0;
        default:
            return 0;  // cancel / poll-remove results, liburing's internal timeouts
    }
}

std::size_t uring_reactor::reap(rtkit::readiness_sink* sink) noexcept {
    std::size_t completed = 0;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring_, head, cqe) {
        ++seen;
        completed += handle(*cqe, sink);
    }
    io_uring_cq_advance(&ring_, seen);
    return completed;
}

void uring_reactor::deliver_kept(rtkit::readiness_sink& sink) noexcept {
    readiness_kept_ = false;
    for (std::uint32_t index = 0; index < table_.slot_count(); ++index) {
        table::entry* r = table_.find_slot(index);
        if (r && r->latched) sink.deliver(r->extra.kernel_token, std::exchange(r->latched, 0u));
    }
}

std::size_t uring_reactor::poll(rtkit::duration timeout, rtkit::readiness_sink& sink) {
    if (readiness_kept_) {
        // Readiness cancel() reaped: delivered now, and this poll does not
        // wait, since the tasks it woke have work to do.
        deliver_kept(sink);
        timeout = rtkit::duration{0};
    }
    if (!wake_read_armed_) timeout = rearm_wake_read(timeout);
    claim_ring();
    int rc = 0;
    if (timeout.count() == 0) {
        // Enter the kernel only when there is something to submit or task
        // work (completions not yet posted) waiting for us.
        const unsigned flags = IO_URING_READ_ONCE(*ring_.sq.kflags);
        if (io_uring_sq_ready(&ring_) > 0 || (flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)))
            rc = io_uring_submit_and_get_events(&ring_);
    } else {
        // EINTR (a signal, or another ring's task work) is retried with what
        // is left of the timeout: the wait ends for a completion, a wake() or
        // the timeout only. An interrupted wait that submitted entries first
        // returns how many, with no completion: that is retried too.
        const auto deadline = rtkit::saturating_add(std::chrono::steady_clock::now(), timeout);
        do {
            if (timeout.count() < 0) {
                rc = io_uring_submit_and_wait(&ring_, 1);
            } else {
                const auto left =
                    std::max(rtkit::duration{0}, std::chrono::duration_cast<rtkit::duration>(
                                                     deadline - std::chrono::steady_clock::now()));
                __kernel_timespec ts{};
                ts.tv_sec = left.count() / 1'000'000'000;
                ts.tv_nsec = left.count() % 1'000'000'000;
                io_uring_cqe* first = nullptr;
                rc = io_uring_submit_and_wait_timeout(&ring_, &first, 1, &ts, nullptr);
            }
        } while ((rc == -EINTR || rc >= 0) && io_uring_cq_ready(&ring_) == 0);
    }
    if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EBUSY && rc != -EAGAIN)
        throw std::system_error(-rc, std::generic_category(), "io_uring_enter");
    return reap(&sink);
}

void uring_reactor::wake() noexcept {
    if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return;  // already pending
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
}

void* uring_reactor::query_interface(const char* name) noexcept {
    if (!name) return nullptr;
    if (std::strcmp(name, rtkit::completion_reactor_v1_name) == 0)
        return static_cast<rtkit::completion_reactor_v1*>(this);
    if (mode_ == ring_mode::bound && std::strcmp(name, rtkit::thread_bound_reactor_name) == 0)
        return static_cast<rtkit::reactor*>(this);
    if (mode_ == ring_mode::first_thread && std::strcmp(name, rtkit::driver_handoff_v1_name) == 0)
        return static_cast<rtkit::driver_handoff_v1*>(this);
    return nullptr;
}

void uring_reactor::submit(const rtkit::io_request& request, rtkit::io_completion& done) {
    const rtkit::io_token token = table_.token_of_fd(request.fd);
    table::entry* r = token ? table_.find(token) : nullptr;
    if (r && request.op == rtkit::io_opcode::recv && multishot_recv_ && request.flags == 0 &&
        request.length > 0 && !r->extra.reader) {
        // A registered socket with no other reader parked: buffered recv.
        submit_buffered_recv(token, *r, request, done);
        return;
    }
    const int file = r ? fixed_file(token, *r) : -1;
    io_uring_sqe* sqe = next_sqe();
    switch (request.op) {
        case rtkit::io_opcode::accept:
            io_uring_prep_accept(sqe, request.fd, request.address, request.address_length,
                                 request.flags);
            break;
        case rtkit::io_opcode::connect:
            io_uring_prep_connect(sqe, request.fd, request.address, request.address_size);
            break;
        case rtkit::io_opcode::recv:
            io_uring_prep_recv(sqe, request.fd, request.buffer, clamp_length(request.length),
                               request.flags);
            break;
        case rtkit::io_opcode::send:
            io_uring_prep_send(sqe, request.fd, request.buffer, clamp_length(request.length),
                               request.flags);
            break;
        case rtkit::io_opcode::read:
            // Offset -1: the file position (pipes and sockets have none).
            io_uring_prep_read(sqe, request.fd, request.buffer, clamp_length(request.length),
                               static_cast<std::uint64_t>(-1));
            break;
        case rtkit::io_opcode::write:
            io_uring_prep_write(sqe, request.fd, request.buffer, clamp_length(request.length),
                                static_cast<std::uint64_t>(-1));
            break;
    }
    set_fixed_file(sqe, file);
    io_uring_sqe_set_data(sqe, &done);
    ++operations_in_flight_;
    done.result = 0;
    done.pending = true;
}

void uring_reactor::cancel(rtkit::io_completion& done) noexcept {
    if (!done.pending) return;
    done.on_complete.reset();  // the canceller is running: no wake needed
    if (done.result <= parked_base) {
        // Parked on a registration, not in the kernel: unpark it. What the
        // multishot recv receives stays queued for the next reader.
        table::entry* r = table_.find_slot(static_cast<std::uint32_t>(parked_base - done.result));
        if (r && r->extra.reader == &done) r->extra.reader = nullptr;
        done.result = -ECANCELED;
        done.pending = false;
        return;
    }
    try {
        io_uring_sqe* sqe = next_sqe();
        io_uring_prep_cancel64(sqe, reinterpret_cast<std::uint64_t>(&done), 0);
        io_uring_sqe_set_data64(sqe, kind_ignore);
    } catch (...) {
        // No room for the cancel even after a flush: wait for the operation itself.
    }
    // The buffer may be reused only after the kernel let go of it: wait for the
    // operation's own completion (other completions are handled on the way).
    try {
        claim_ring();
    } catch (const std::exception& e) {
        // Only the ring's issuer can wait for it, and returning would let the
        // kernel write into a released buffer.
        std::fprintf(stderr, "rtkit uring reactor: cancel() on the wrong thread: %s\n", e.what());
        std::abort();
    }
    while (done.pending) {
        const int rc = io_uring_submit_and_wait(&ring_, 1);
        if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EBUSY && rc != -EAGAIN) {
            // The ring itself is broken; returning would let the kernel write
            // into a released buffer.
            std::abort();
        }
        reap(nullptr);  // readiness met on the way waits for the next poll()
    }
}

// --- Buffered recv ---

void uring_reactor::arm_recv(rtkit::io_token token, table::entry& r) {
    const int file = fixed_file(token, r);
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_recv_multishot(sqe, r.fd, nullptr, 0, 0);
    set_fixed_file(sqe, file);
    sqe->flags |= IOSQE_BUFFER_SELECT;  // the kernel picks a provided buffer per chunk
    sqe->buf_group = provided_buffers::group;
    io_uring_sqe_set_data64(sqe, tagged(token, kind_recv));
    r.extra.recv_armed = true;
    r.extra.recv_cancel_sent = false;
}

void uring_reactor::submit_buffered_recv(rtkit::io_token token, table::entry& r,
                                         const rtkit::io_request& request,
                                         rtkit::io_completion& done) {
    uring_state& st = r.extra;
    if (st.has_result()) {
        // Bytes (or the stream's last word) are here already: complete at once,
        // sparing the submitter a suspension and a trip through poll().
        done.result = take_queued(st, request.buffer, clamp_length(request.length));
        done.pending = false;
        return;
    }
    if (!st.recv_armed) {
        if (buffers_->available() == 0) {
            // Every provided buffer holds unread bytes: receive into the caller's.
            const int file = fixed_file(token, r);
            io_uring_sqe* sqe = next_sqe();
            io_uring_prep_recv(sqe, request.fd, request.buffer, clamp_length(request.length), 0);
            set_fixed_file(sqe, file);
            io_uring_sqe_set_data(sqe, &done);
            ++operations_in_flight_;
            done.result = 0;
            done.pending = true;
            return;
        }
        arm_recv(token, r);
    }
    st.reader = &done;
    st.reader_buffer = request.buffer;
    st.reader_length = clamp_length(request.length);
    done.result = parked_base - static_cast<int>(table::index_of(token));
    done.pending = true;
}

bool uring_reactor::deliver(table::entry& r) noexcept {
    uring_state& st = r.extra;
    if (!st.reader || !st.has_result()) return false;
    rtkit::io_completion* done = std::exchange(st.reader, nullptr);
    done->result = take_queued(st, st.reader_buffer, st.reader_length);
    done->pending = false;
    done->on_complete.wake();
    return true;
}

int uring_reactor::take_queued(uring_state& st, void* buffer, unsigned length) noexcept {
    if (st.queued > 0) {
        // Like recv(2): as many queued bytes as fit, across chunks.
        auto* out = static_cast<std::byte*>(buffer);
        unsigned copied = 0;
        while (st.queued > 0 && copied < length) {
            const auto id = static_cast<std::uint16_t>(st.head);
            const unsigned n = std::min(chunk_length_[id] - st.head_offset, length - copied);
            std::memcpy(out + copied, buffers_->data(id) + st.head_offset, n);
            copied += n;
            st.head_offset += n;
            if (st.head_offset == chunk_length_[id]) {
                st.head = chunk_next_[id];
                if (st.head < 0) st.tail = -1;
                --st.queued;
                st.head_offset = 0;
                buffers_->recycle(id);
            }
        }
        return static_cast<int>(copied);
    }
    // End of stream or an error, told once; the next recv asks the kernel again.
    return std::exchange(st.end, 1);
}

void uring_reactor::restart_reader(rtkit::io_token token, table::entry& r) {
    uring_state& st = r.extra;
    if (!st.reader || st.has_result() || st.recv_armed) return;
    if (buffers_->available() > 0) {
        arm_recv(token, r);
        return;
    }
    // Out of provided buffers: this recv goes to the kernel whole, into the
    // reader's own buffer (one recv in flight per registration keeps order).
    const int file = fixed_file(token, r);
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_recv(sqe, r.fd, st.reader_buffer, st.reader_length, 0);
    set_fixed_file(sqe, file);
    io_uring_sqe_set_data(sqe, st.reader);
    ++operations_in_flight_;
    st.reader->result = 0;
    st.reader = nullptr;
}

std::size_t uring_reactor::handle_recv(const io_uring_cqe& cqe) noexcept {
    const bool has_buffer = cqe.flags & IORING_CQE_F_BUFFER;
    const auto id = static_cast<std::uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
    if (has_buffer) buffers_->taken();
    const rtkit::io_token token = token_of(cqe.user_data);
    table::entry* r = table_.find(token);
    if (!r) {
        if (has_buffer) buffers_->recycle(id);  // removed: nobody will read these bytes
        return 0;
    }
    uring_state& st = r->extra;
    if (!(cqe.flags & IORING_CQE_F_MORE)) st.recv_armed = false;
    if (cqe.res > 0 && has_buffer) {
        chunk_length_[id] = static_cast<unsigned>(cqe.res);
        chunk_next_[id] = -1;
        if (st.tail >= 0)
            chunk_next_[static_cast<std::size_t>(st.tail)] = id;
        else
            st.head = id;
        st.tail = id;
        ++st.queued;
    } else if (has_buffer) {
        buffers_->recycle(id);
    }
    // ENOBUFS (no buffer was free) and ECANCELED (we stopped it) end the
    // multishot recv without ending the stream.
    if (cqe.res == 0 || (cqe.res < 0 && cqe.res != -ENOBUFS && cqe.res != -ECANCELED))
        st.end = cqe.res;
    const std::size_t woke = deliver(*r) ? 1 : 0;
    try {
        // Not while share() empties the ring: it starts readers in the next one.
        if (!sharing_) restart_reader(token, *r);
    } catch (...) {
        // No submission entry even after a flush: fail this recv rather than hang.
        if (rtkit::io_completion* done = std::exchange(st.reader, nullptr)) {
            done->result = -EBUSY;
            done->pending = false;
            done->on_complete.wake();
        }
    }
    if (!st.reader && st.recv_armed && !st.recv_cancel_sent && st.queued >= max_queued_buffers) {
        // Nobody reads this one: stop receiving until a reader drains the queue.
        if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) {
            io_uring_prep_cancel64(sqe, cqe.user_data, 0);
            io_uring_sqe_set_data64(sqe, kind_ignore);
            st.recv_cancel_sent = true;
        }
    }
    return woke;
}

void uring_reactor::drop_queue(table::entry& r) noexcept {
    uring_state& st = r.extra;
    while (st.head >= 0) {
        const auto id = static_cast<std::uint16_t>(st.head);
        st.head = chunk_next_[id];
        buffers_->recycle(id);
    }
    st.tail = -1;
    st.queued = 0;
    st.head_offset = 0;
}

}  // namespace rtkit_uring
