#include "poll_tuner.hpp"

#include <algorithm>

namespace mini_redis {

std::optional<std::chrono::microseconds> poll_tuner::note_read(std::size_t commands) noexcept {
    if (!on_) return std::nullopt;
    // An exponential moving average, each read weighing 1/16: relaxed loads
    // and stores, not a read-modify-write, since a lost update costs nothing.
    const auto sample = static_cast<std::int64_t>(std::min(commands, most_counted) * one);
    std::int64_t average = average_.load(std::memory_order_relaxed);
    average += (sample - average + 8) >> 4;  // rounded (an arithmetic shift)
    average_.store(static_cast<std::uint32_t>(average), std::memory_order_relaxed);

    // Onto the curve, rounded: shortest up to one command per read, longest
    // from full_at.
    const std::int64_t span = static_cast<std::int64_t>(shape_.full_at - 1) * one;
    const std::int64_t along = std::clamp<std::int64_t>(average - one, 0, span);
    const std::int64_t shortest = shape_.shortest.count();
    const std::int64_t chosen =
        shortest + ((shape_.longest.count() - shortest) * along + span / 2) / span;
    if (chosen == chosen_us_.load(std::memory_order_relaxed)) return std::nullopt;
    chosen_us_.store(chosen, std::memory_order_relaxed);
    return std::chrono::microseconds{chosen};
}

}  // namespace mini_redis
