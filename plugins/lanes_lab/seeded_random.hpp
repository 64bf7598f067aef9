#pragma once
// rtkit_lanes::seeded_random: a generator whose every output is fixed by its
// seed, on every machine and compiler.
#include <cstdint>

namespace rtkit_lanes {

/// SplitMix64 (Steele, Lea and Flood, 2014), and Lemire's unbiased mapping of
/// its output onto [0, n). Only 64-bit integer arithmetic: no floating point,
/// no standard-library distribution (whose output the standard leaves open),
/// so the same seed gives the same numbers everywhere.
class seeded_random {
  public:
    explicit seeded_random(std::uint64_t seed) noexcept : state_(seed) {}

    std::uint64_t next() noexcept {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15u);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        return z ^ (z >> 31);
    }

    /// Uniform in [0, n), n > 0: the high half of next() * n, drawing again
    /// in the rare case the low half falls where the mapping would be biased.
    std::uint64_t below(std::uint64_t n) noexcept {
        wide product = static_cast<wide>(next()) * n;
        auto low = static_cast<std::uint64_t>(product);
        if (low < n) {
            const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
            while (low < threshold) {
                product = static_cast<wide>(next()) * n;
                low = static_cast<std::uint64_t>(product);
            }
        }
        return static_cast<std::uint64_t>(product >> 64);
    }

  private:
    /// GCC's and Clang's 128-bit integer: one multiplication instead of a
    /// division per pick.
    __extension__ typedef unsigned __int128 wide;

    std::uint64_t state_;
};

}  // namespace rtkit_lanes
