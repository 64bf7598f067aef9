#include "signal_hub.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>

#include "rtkit/sync/waiter.hpp"

namespace rtkit::detail {
namespace {

// --- What the handler touches: lock-free atomics and one write(). ---

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

/// Set by the handler, taken by dispatch.
constinit std::array<std::atomic<bool>, max_signal_number + 1> arrived_flags{};
/// The pipe's write end (-1 until the first subscription).
constinit std::atomic<int> wake_pipe{-1};

extern "C" void on_signal(int signal) {
    const int saved_errno = errno;
    arrived_flags[static_cast<std::size_t>(signal)].store(true, std::memory_order_release);
    // The number itself, so that dispatch sees the order of arrival. A full
    // pipe (EAGAIN) loses the byte, not the signal: dispatch sweeps the flags.
    const auto byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] const ssize_t n = ::write(wake_pipe.load(std::memory_order_acquire), &byte, 1);
    errno = saved_errno;
}

std::uint64_t bit(int signal) noexcept {
    return std::uint64_t{1} << (signal - 1);
}

/// Why `signal` cannot be awaited, or null.
const char* refusal(int signal) noexcept {
    switch (signal) {
        case SIGKILL:
        case SIGSTOP:
            return "cannot be caught";
        case SIGSEGV:
        case SIGBUS:
        case SIGILL:
        case SIGFPE:
            return "reports a fault in the thread that caused it, which a handler that returns "
                   "would cause again for ever";
        default:
            return signal >= 1 && signal <= max_signal_number ? nullptr
                                                              : "is not a signal number (1..64)";
    }
}

/// "SIGINT (2)", or "signal 70".
std::string signal_name(int signal) {
    const char* abbrev = nullptr;
#ifdef __GLIBC__
    if (signal >= 1 && signal <= max_signal_number) abbrev = sigabbrev_np(signal);
#endif
    return abbrev ? "SIG" + std::string(abbrev) + " (" + std::to_string(signal) + ")"
                  : "signal " + std::to_string(signal);
}

}  // namespace

signal_hub& signal_hub::get() {
    static signal_hub* const hub = new signal_hub();
    return *hub;
}

std::uint64_t signal_hub::mask_of(std::span<const int> signals) {
    if (signals.size() == 0)
        throw std::invalid_argument("a signal stream needs at least one signal to listen for");
    std::uint64_t mask = 0;
    for (const int signal : signals) {
        if (const char* why = refusal(signal))
            throw std::invalid_argument("cannot listen for " + signal_name(signal) + ": it " + why);
        mask |= bit(signal);
    }
    return mask;
}

void signal_hub::open_pipe_once() {
    if (read_end_ >= 0) return;
    int ends[2];
    if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) < 0)
        throw std::system_error(errno, std::generic_category(), "pipe2 for signal delivery");
    read_end_ = ends[0];
    wake_pipe.store(ends[1], std::memory_order_release);
}

void signal_hub::hand_out(int signal, sync::detail::pending_wakes& wakes) {
    const auto i = static_cast<std::size_t>(signal);
    if (listeners_[i] == 0 || !arrived_flags[i].exchange(false, std::memory_order_acquire)) return;
    for (signal_subscription* s : subscriptions_) {
        if (!(s->wanted & bit(signal)) || (s->arrived_mask & bit(signal))) continue;
        s->arrived.push_back(signal);  // never allocates: reserved at subscription
        s->arrived_mask |= bit(signal);
        if (s->waiting) wakes.add(std::move(s->waiting));
    }
}

/// Empties the pipe, handing out each signal in the order its bytes came,
/// then sweeps the flags for arrivals whose byte did not fit into a full
/// pipe. A signal whose flag is seen after its byte was read is handed out
/// here; one that comes later writes a new byte, which wakes a listener again.
void signal_hub::dispatch(sync::detail::pending_wakes& wakes) {
    unsigned char bytes[64];
    ssize_t n;
    while ((n = ::read(read_end_, bytes, sizeof bytes)) > 0)
        for (ssize_t k = 0; k < n; ++k)
            if (bytes[k] >= 1 && bytes[k] <= max_signal_number) hand_out(bytes[k], wakes);
    for (int signal = 1; signal <= max_signal_number; ++signal)
        hand_out(signal, wakes);
}

/// The last listener of `signal` is gone.
void signal_hub::restore(int signal) noexcept {
    const auto i = static_cast<std::size_t>(signal);
    ::sigaction(signal, &previous_action_[i], nullptr);
    // An arrival between the last take and now is nobody's any more.
    arrived_flags[i].store(false, std::memory_order_relaxed);
}

void signal_hub::drop_counts(std::uint64_t wanted, int end) noexcept {
    for (int signal = 1; signal < end; ++signal)
        if ((wanted & bit(signal)) && --listeners_[static_cast<std::size_t>(signal)] == 0)
            restore(signal);
}

int signal_hub::subscribe(signal_subscription& s) {
    // The steps that may allocate come before any change.
    s.arrived.reserve(static_cast<std::size_t>(__builtin_popcountll(s.wanted)));
    sync::detail::pending_wakes wakes;
    std::lock_guard lock(mutex_);
    open_pipe_once();
    subscriptions_.reserve(subscriptions_.size() + 1);
    // What arrived before `s` belongs to the listeners that were there.
    dispatch(wakes);
    for (int signal = 1; signal <= max_signal_number; ++signal) {
        if (!(s.wanted & bit(signal))) continue;
        const auto i = static_cast<std::size_t>(signal);
        if (listeners_[i] == 0) {
            struct sigaction action {};
            action.sa_handler = on_signal;
            sigemptyset(&action.sa_mask);
            // Restarted: a signal does not make other threads' system calls fail.
            action.sa_flags = SA_RESTART;
            arrived_flags[i].store(false, std::memory_order_relaxed);
            if (::sigaction(signal, &action, &previous_action_[i]) < 0) {
                const int error = errno;
                drop_counts(s.wanted, signal);
                throw std::system_error(error, std::generic_category(),
                                        "cannot listen for " + signal_name(signal) + ": sigaction");
            }
        }
        ++listeners_[i];
    }
    const int fd = ::fcntl(read_end_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
        const int error = errno;
        drop_counts(s.wanted, max_signal_number + 1);
        throw std::system_error(error, std::generic_category(), "dup of the signal pipe");
    }
    subscriptions_.push_back(&s);
    return fd;
}

void signal_hub::unsubscribe(signal_subscription& s) noexcept {
    waker dropped;  // released after the unlock
    std::lock_guard lock(mutex_);
    subscriptions_.erase(std::remove(subscriptions_.begin(), subscriptions_.end(), &s),
                         subscriptions_.end());
    dropped = std::move(s.waiting);
    drop_counts(s.wanted, max_signal_number + 1);
}

std::optional<int> signal_hub::take(signal_subscription& s) {
    sync::detail::pending_wakes wakes;
    std::lock_guard lock(mutex_);
    dispatch(wakes);
    if (s.arrived.empty()) return std::nullopt;
    const int signal = s.arrived.front();
    s.arrived.erase(s.arrived.begin());
    s.arrived_mask &= ~bit(signal);
    return signal;
}

bool signal_hub::arm(signal_subscription& s, waker w) {
    std::lock_guard lock(mutex_);
    if (!s.arrived.empty()) return false;
    s.waiting = std::move(w);
    return true;
}

void signal_hub::disarm(signal_subscription& s) noexcept {
    waker dropped;
    std::lock_guard lock(mutex_);
    dropped = std::move(s.waiting);
}

}  // namespace rtkit::detail
