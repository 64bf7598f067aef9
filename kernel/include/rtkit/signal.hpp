#pragma once
// rtkit::signal_stream: POSIX signals (SIGINT, SIGTERM, SIGHUP, ...) awaited
// by tasks, as a stream.
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>

#include "rtkit/task.hpp"

namespace rtkit {

namespace detail {
struct signal_listener;
}

/// Listens for one or more signals from its construction until it is
/// destroyed; `co_await s.next()` gives the number of the next one that
/// arrived (waiting for it). Every stream listening for a signal sees each
/// arrival of it, in any runtime of the process, on any flavor and reactor.
///
/// The first stream of a signal installs the process's handler for it (a
/// handler that writes to a pipe each stream watches through the runtime's
/// reactor); when the last one goes, the disposition the signal had before
/// (usually the default) is put back. The signal mask is never changed: a
/// signal that every thread blocks stays pending until one unblocks it.
/// Arrivals of one signal that a stream has not taken yet count once, as
/// POSIX itself merges pending signals: a stream tells "it came (again)",
/// not how often.
///
/// Construct, use and destroy it in a task or a block_on root (it holds a
/// descriptor registered with the reactor); it may be destroyed on any
/// thread, but not while a next() on it waits. One task waits in next() at
/// a time.
class signal_stream {
  public:
    /// Starts listening for `signal`. Throws std::invalid_argument for a
    /// signal that cannot be awaited (SIGKILL and SIGSTOP cannot be caught;
    /// SIGSEGV, SIGBUS, SIGILL and SIGFPE report faults, which a handler that
    /// returns would re-run for ever; numbers outside 1..64), no_runtime_error
    /// outside a task, std::system_error when the pipe or its registration fails.
    explicit signal_stream(int signal);
    /// Starts listening for each of `signals` (at least one).
    explicit signal_stream(std::initializer_list<int> signals);
    /// The same for a list made at run time.
    explicit signal_stream(std::span<const int> signals);
    signal_stream(signal_stream&& other) noexcept;
    signal_stream& operator=(signal_stream&& other) noexcept;
    ~signal_stream();

    /// The next signal that arrived since the stream began (and was not
    /// taken yet), waiting for one. A cancellation point: a cancelled wait
    /// takes nothing. Signals waiting together come out in arrival order.
    task<int> next();
    /// The next signal that already arrived, without waiting.
    std::optional<int> try_next();

  private:
    std::unique_ptr<detail::signal_listener> listener_;
};

/// Waits for the next SIGINT (Ctrl-C in a terminal), listening from its first
/// await on (the task is lazy, as every rtkit::task).
task<void> ctrl_c();

}  // namespace rtkit
