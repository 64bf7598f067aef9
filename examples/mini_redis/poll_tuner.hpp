#pragma once
// mini_redis::poll_tuner: the runtime's polling time before sleeping, chosen
// from how many commands the server's reads bring.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace mini_redis {

/// How poll_tuner maps commands per read onto the polling time.
struct poll_curve {
    std::chrono::microseconds shortest{2};  ///< at one command per read or fewer
    std::chrono::microseconds longest{10};  ///< from full_at on
    std::size_t full_at = 8;                ///< commands per read (2 to 64)
};

/// What a wake of the server is worth decides whether polling the reactor
/// before sleeping pays (rtkit::runtime::set_poll_before_park): a client that
/// pipelines 16 commands per write pays for waking the server once per 16
/// requests, and takes longer to send again (it reads 16 replies first), so
/// the server polls long to catch it; one command per read is worth a short
/// poll only, since polling that finds work late costs more CPU than sleeping
/// and being woken (bench/README.md, "mini-redis against redis-server").
///
/// The tuner keeps a moving average of the commands per read over every
/// connection (each read weighs 1/16) and maps it onto the polling time:
/// `shortest` at one command per read or fewer, `longest` from `full_at`
/// commands on, a straight line between. Connections of a multi-thread
/// server may call it at once: a lost update only shifts the average.
class poll_tuner {
  public:
    /// Off, note_read never chooses a time.
    explicit poll_tuner(bool on, poll_curve shape = {}) noexcept : on_(on), shape_(shape) {}

    bool on() const noexcept { return on_; }

    /// A read of a connection brought `commands` complete commands. Returns
    /// the polling time to set when it differs from the one chosen last (the
    /// first call always chooses one), nothing otherwise.
    std::optional<std::chrono::microseconds> note_read(std::size_t commands) noexcept;

    /// The average, in commands per read.
    double commands_per_read() const noexcept {
        return static_cast<double>(average_.load(std::memory_order_relaxed)) / one;
    }

  private:
    /// The average is kept in 1/4096ths of a command.
    static constexpr std::uint32_t one = 4096;
    /// A read counts at most this many commands: a huge pipeline moves the
    /// average no further than one that is merely long.
    static constexpr std::size_t most_counted = 64;

    bool on_;
    poll_curve shape_;
    std::atomic<std::uint32_t> average_{one};
    std::atomic<std::int64_t> chosen_us_{-1};
};

}  // namespace mini_redis
