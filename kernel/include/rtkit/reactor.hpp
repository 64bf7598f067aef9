#pragma once
// rtkit::reactor: the I/O readiness interface that reactor plugins implement.
#include <cstddef>
#include <cstdint>

#include "rtkit/plugin_object.hpp"
#include "rtkit/time.hpp"

namespace rtkit {

/// What a registration waits for. Values combine as bit flags.
enum class interest : std::uint8_t { read = 1, write = 2, read_write = 3 };

/// Readiness bits, as a reactor delivers them and the kernel reports them. The
/// same meaning for every backend (edge- or level-triggered, or the readiness
/// side of a completion-based one):
namespace ready {
/// A read would not block: data, end of stream, a connection to accept, or an
/// error to report (POLLIN, EPOLLIN, EVFILT_READ).
inline constexpr unsigned readable = 1;
/// A write would not block, or a connect finished (POLLOUT, EPOLLOUT, EVFILT_WRITE).
inline constexpr unsigned writable = 2;
/// The peer hung up: it shut down or closed its writing side, or a pipe's
/// other end is gone (POLLHUP / POLLRDHUP, EPOLLHUP / EPOLLRDHUP, EV_EOF).
inline constexpr unsigned hangup = 4;
/// An operation would fail with an error other than EAGAIN: a pending socket
/// error, a pipe whose reader is gone, a descriptor closed while registered
/// (POLLERR / POLLNVAL, EPOLLERR, EV_ERROR).
inline constexpr unsigned error = 8;
}  // namespace ready

/// Identifies one registration; the kernel chooses it. Never 0 (a backend may
/// use 0 for its own events, such as its wake descriptor's) and never reused
/// while the registration lives. A removed registration's token is not given
/// to the next one, even for the same descriptor number.
using io_token = std::uint64_t;

/// What a backend can hold, from reactor::limits(). 0 means no limit.
struct reactor_limits {
    /// Registrations at once (a fixed table or ring).
    std::size_t max_registrations = 0;
    /// Every registered descriptor number must be below this (select's FD_SETSIZE).
    int descriptor_limit = 0;
};

/// Where a reactor's poll() reports readiness: the kernel's registrations.
class readiness_sink {
  public:
    /// Readiness `bits` (ready::*) seen for the registration `token`. Called
    /// only from inside poll(), on the thread running it. A token that was
    /// removed meanwhile is ignored. Never throws; the wakers it fires only
    /// enqueue tasks and never call back into the reactor.
    virtual void deliver(io_token token, unsigned bits) noexcept = 0;

  protected:
    ~readiness_sink() = default;
};

/// The query_interface() name by which a reactor says it is bound to one
/// thread for its whole life: the first thread that calls a method other
/// than wake(). The answer is any non-null pointer (the reactor itself). With
/// such a reactor the current-thread runtime has a home thread, the first
/// that drives it: it runs tasks only inside block_on on that thread (no
/// background thread), refuses block_on from other threads with an error,
/// and a shutdown from another thread leaks the live tasks (reported)
/// rather than touch the reactor there. A multi-thread runtime refuses it.
/// Such a reactor can tell its owner from other threads with
/// reactor_support::this_thread_number() (a std::thread::id may be reused).
inline constexpr const char* thread_bound_reactor_name = "rtkit.thread_bound.v1";

/// The query_interface() name of rtkit::driver_handoff_v1.
inline constexpr const char* driver_handoff_v1_name = "rtkit.driver_handoff.v1";

/// Offered (through query_interface(driver_handoff_v1_name)) by a reactor
/// that runs cheaper while one thread drives it, such as io_uring's
/// single-issuer ring: until the kernel calls share(), it may take the first
/// thread that calls a method other than wake() for its only driver. The
/// kernel calls share() before a second thread drives the reactor: on the
/// thread that drove it so far while that thread still may (a current-thread
/// runtime handing its worker to its background thread; a multi-thread
/// runtime, before its workers start), or else on the next thread, and then
/// only when nothing is registered. From then on the reactor follows the
/// thread rule of every reactor (rtkit::reactor).
class driver_handoff_v1 {
  public:
    /// Lets any thread drive the reactor from now on. Called once at most.
    /// What is in flight may be cancelled and resubmitted: an operation of
    /// completion_reactor_v1 may complete with -EAGAIN then (its submitter
    /// finishes it on readiness), and readiness found meanwhile is delivered
    /// by the next poll(). Throws std::system_error when it cannot (the
    /// kernel then keeps driving it from the thread it has, and says so
    /// where another thread asks).
    virtual void share() = 0;

  protected:
    ~driver_handoff_v1() = default;
};

/// A readiness backend: it watches descriptors and delivers what it sees.
///
/// The kernel keeps the rest: every registration's interest, the readiness
/// delivered and not yet consumed ("latched": kept until an operation meets
/// EAGAIN, so an edge that arrives while nobody waits is not lost), and the
/// tasks waiting on it (any number, in either direction). A task's I/O tries
/// the syscall; on EAGAIN the kernel forgets that readiness (with a latched
/// hang-up or error, which the syscall would have reported) and, with nothing
/// latched, calls watch() for the direction the task waits for; a delivery
/// then latches the bits and wakes the tasks waiting for them.
///
/// Rules, each checked by a case of the conformance suite (`rtctl
/// conformance --list` says what each case checks; so does
/// share/doc/rtkit/conformance.md where rtkit is installed):
/// - every readiness goes to the token of the registration it belongs to,
///   also when several registrations are ready in one poll() (cases
///   reactor.readiness_reaches_only_its_registration, reactor.several_ready_in_one_poll);
/// - readiness that exists or arrives while the kernel waits (after watch())
///   is delivered by a later poll(), also when it arrived before watch()
///   (cases reactor.read_readiness, reactor.write_readiness,
///   reactor.readiness_before_a_wait_is_not_lost, reactor.readiness_survives_a_flood);
/// - a peer's hang-up is delivered as ready::hangup, a pending error as
///   ready::error (cases reactor.hangup_reported, reactor.error_reported);
/// - watch() adds: the directions it asks for are watched as well as those
///   asked for before and not delivered since; no call narrows what is
///   watched (cases reactor.interest_changes, reactor.watch_adds_a_direction);
/// - a delivered direction (readable or writable) need not be delivered again
///   until watch() asks for it again, and a level-triggered backend must not:
///   it would return from every poll() at once (a busy loop) for readiness the
///   kernel already holds (case reactor.delivered_readiness_is_not_repeated);
/// - what one poll() does not deliver (it fetches at most so many events, say)
///   the next poll() delivers without waiting for its timeout (case
///   reactor.burst_beyond_any_cap);
/// - wake() makes a blocking poll() return promptly, or the next one return at
///   once; many wakes before one poll() coalesce (cases
///   reactor.wake_ends_a_blocking_poll, reactor.many_wakes_coalesce);
/// - poll() waits no less than its timeout when nothing happens, and a signal
///   caught meanwhile does not make it throw (cases reactor.poll_honours_timeout,
///   reactor.signal_does_not_end_poll);
/// - add() refuses a descriptor that is not open, serves every registration
///   up to its limits(), and serves a descriptor number registered again after
///   remove() (cases reactor.add_refuses_a_closed_descriptor,
///   reactor.ten_thousand_descriptors, reactor.reused_descriptor_is_watched_anew).
///
/// Tolerated, because the kernel checks every readiness with the syscall
/// itself and polls again when a poll() returns: readiness a descriptor does
/// not have (spurious readiness, or what a removed registration had delivered
/// under the token of the next registration of its descriptor number) costs
/// a syscall that meets EAGAIN and forgets it; a poll() that returns early
/// (EINTR not retried, say) is followed by another. Never tolerated: readiness
/// lost, delivered under another live registration's token, or delivered
/// again and again (the rules above).
///
/// Threads: the kernel calls every method but wake() from one thread at a
/// time; the thread can change between calls (the current-thread runtime
/// lends its worker to each block_on caller and to a background thread; a
/// multi-thread runtime serialises calls with a lock), and the kernel orders
/// the calls, so a reactor needs no lock for them but must keep no
/// thread-local state. wake() may be called from any thread at any time,
/// concurrently with the others. Nothing here is re-entrant.
///
/// A reactor that only one thread may drive (io_uring with single_issuer =
/// true) answers query_interface(thread_bound_reactor_name) with a non-null
/// pointer. The kernel then drives it from one thread only, the first that
/// drives the runtime; see thread_bound_reactor_name. One that is cheaper
/// while one thread drives it, but can be shared (io_uring by default),
/// offers driver_handoff_v1 instead.
///
/// A reactor that performs whole operations (io_uring) also offers
/// rtkit::completion_reactor_v1 through query_interface(completion_reactor_v1_name):
/// the pointer lives as long as the reactor and follows the same thread rule.
class reactor : public plugin_object {
  public:
    plugin_identity identity() const noexcept final {
        return {RTKIT_PLUGIN_REACTOR, RTKIT_PLUGIN_ABI_MAJOR};
    }

    /// Starts watching `fd` (not owned) for the registration `token`. The
    /// kernel has checked the number against limits() and that `fd` has no
    /// live registration. Throws std::system_error: EBADF when `fd` is not an
    /// open descriptor, otherwise what the backend's kernel says (ENOMEM,
    /// EPERM for a regular file under epoll, ...). Nothing of it stays then.
    virtual void add(int fd, io_token token) = 0;

    /// The kernel now waits for `want` on this registration (one direction:
    /// a task about to read, or to write) and holds none of it latched. Adds
    /// `want` to what is watched: the other direction stays watched if it was
    /// asked for and not delivered since (one task may be reading while
    /// another writes). An edge-triggered backend that reports everything
    /// from add() on ignores it; a level-triggered one watches that direction
    /// again; a lazy one starts watching now. The reactor is never told when
    /// a waiting task gives up (it is cancelled, or times out): it may go on
    /// watching until it delivers, and what it delivers then is latched. May
    /// throw std::system_error (the backend's queue is full): the wait then
    /// fails.
    virtual void watch(int fd, io_token token, interest want) = 0;

    /// Stops watching: called before the descriptor is closed (the kernel
    /// has ended every wait on it), so the reactor must let go of it now and
    /// not touch the number afterwards (it will belong to another file); it
    /// must also cope with one closed already (the kernel drops a closed
    /// descriptor's registration from epoll by itself). Nothing delivered for
    /// `token` afterwards reaches anyone (the kernel ignores a removed token);
    /// readiness of this descriptor delivered under the token of the next
    /// registration of its number is tolerated (see above).
    virtual void remove(int fd, io_token token) noexcept = 0;

    /// Waits up to `timeout` (negative: no limit; zero: do not block) for
    /// readiness, delivering each to `sink`, and returns early after wake().
    /// A reactor may deliver in a later poll() what it found (a per-poll
    /// batch limit; readiness reaped outside poll()); that poll() then
    /// delivers it and does not wait for its timeout. Also reaps a
    /// completion-based backend's completions and wakes their wakers; returns
    /// how many of those it woke (0 for readiness only). EINTR (a signal the
    /// program catches) is retried with what is left of the timeout
    /// (reactor_support::wait_through_interrupts), or ends the poll early
    /// (tolerated), never as an error. Throws std::system_error when the wait
    /// itself fails: the kernel then ends the block_on driving the worker
    /// with it (or stops the runtime's background thread, reported on
    /// stderr); what was delivered before stands.
    virtual std::size_t poll(duration timeout, readiness_sink& sink) = 0;

    /// Any thread, any time. Makes a blocking poll() return promptly, or the
    /// next one return at once; many wakes before one poll coalesce into one
    /// early return. Never throws, never blocks.
    virtual void wake() noexcept = 0;

    /// What this backend can hold; the kernel refuses an add() beyond it with
    /// EMFILE and a message naming the limit, and the conformance suite runs
    /// its large cases at this size (otherwise it opens up to 10,000
    /// descriptors, raising RLIMIT_NOFILE where it can). The reactor's own
    /// descriptors (an epoll or wake descriptor) are not registrations: they
    /// do not count against max_registrations, and a backend with a
    /// descriptor_limit must keep its own below that limit itself. Constant
    /// for the object's life.
    virtual reactor_limits limits() const noexcept { return {}; }
};

}  // namespace rtkit
