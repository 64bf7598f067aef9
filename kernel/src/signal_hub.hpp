#pragma once
// The process's one signal handler and the listeners it feeds.
#include <signal.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "rtkit/waker.hpp"

namespace rtkit::sync::detail {
class pending_wakes;
}

namespace rtkit::detail {

/// The highest signal number a stream may listen for (Linux has 64).
inline constexpr int max_signal_number = 64;

/// One listener's part of the hub: which signals it wants and which arrived
/// for it. The hub's mutex guards everything but `wanted`, fixed at start.
struct signal_subscription {
    std::uint64_t wanted = 0;        ///< bit n: signal n
    std::vector<int> arrived;        ///< not taken yet, in arrival order
    std::uint64_t arrived_mask = 0;  ///< the bits of `arrived`: each signal once
    waker waiting;                   ///< the task waiting in next(), if any
};

/// Process-wide. The handler it installs only sets a flag and writes a byte
/// to a pipe (both async-signal-safe); listeners watch that pipe through
/// their reactors, and whichever wakes first hands every arrival to every
/// subscription that wants it (dispatch), waking the ones that wait.
class signal_hub {
  public:
    /// The hub (created on first use, never destroyed: a handler or a
    /// listener may outlive static destruction).
    static signal_hub& get();

    /// The `wanted` mask of `signals`. Throws std::invalid_argument for an
    /// empty list or a signal that cannot be awaited, saying why.
    static std::uint64_t mask_of(std::span<const int> signals);

    /// Installs the handler for the signals `s.wanted` names that had no
    /// listener yet, and adds `s`. Returns a new descriptor (close-on-exec,
    /// non-blocking) of the pipe's read end, for the caller's reactor.
    /// Throws std::system_error when the pipe or the handler cannot be set up.
    int subscribe(signal_subscription& s);
    /// Removes `s`; the last listener of a signal puts back its old disposition.
    void unsubscribe(signal_subscription& s) noexcept;

    /// Dispatches what arrived, then takes the oldest signal of `s`.
    std::optional<int> take(signal_subscription& s);
    /// Keeps `w` to wake when a signal arrives for `s`; false (keeping
    /// nothing) when one is already there to take.
    bool arm(signal_subscription& s, waker w);
    /// Forgets the waker arm() kept.
    void disarm(signal_subscription& s) noexcept;

  private:
    signal_hub() = default;
    void open_pipe_once();
    void dispatch(sync::detail::pending_wakes& wakes);
    void hand_out(int signal, sync::detail::pending_wakes& wakes);
    void restore(int signal) noexcept;
    /// Takes back the listener counts of the signals of `wanted` below `end`
    /// (a subscription that failed half way, or one that ends).
    void drop_counts(std::uint64_t wanted, int end) noexcept;

    std::mutex mutex_;
    // Guarded by mutex_:
    int read_end_ = -1;  ///< the pipe's read end; the handler writes to the other
    std::array<int, max_signal_number + 1> listeners_{};
    std::array<struct sigaction, max_signal_number + 1> previous_action_{};
    std::vector<signal_subscription*> subscriptions_;
};

}  // namespace rtkit::detail
