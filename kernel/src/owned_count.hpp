#pragma once
// A counter that one thread writes and any thread reads.
#include <atomic>
#include <cstdint>

namespace rtkit::detail {

/// A count that one thread writes and any thread reads. Adding is a load and
/// a store, no locked instruction: only one thread at a time adds (for a
/// worker's counts, the thread driving it; the kernel orders one driver after
/// the next). Release and acquire cost nothing
/// more on x86, and they let a snapshot read a task's end before its spawn
/// and never see more ends than starts.
class owned_count {
  public:
    void add(std::uint64_t n = 1) noexcept {
        value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_release);
    }
    std::uint64_t get() const noexcept { return value_.load(std::memory_order_acquire); }

  private:
    std::atomic<std::uint64_t> value_{0};
};

}  // namespace rtkit::detail
