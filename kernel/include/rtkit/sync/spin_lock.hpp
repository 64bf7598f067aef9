#pragma once
// rtkit::sync::detail::spin_lock: the lock around each sync primitive's state.
#include <atomic>
#include <thread>

namespace rtkit::sync::detail {

/// A test-and-test-and-set lock for the few instructions a primitive's state
/// change takes. Uncontended it costs one atomic exchange to take and a plain
/// store to give back, about half of what a std::mutex pair costs; W4 (ping
/// pong over channels) takes six per round trip. A waiter spins a little, then
/// yields its time slice, since the holder may have been preempted on a
/// machine with few cores. Never hold it across anything that can block.
class spin_lock {
  public:
    void lock() noexcept {
        if (!locked_.exchange(true, std::memory_order_acquire)) return;
        lock_contended();
    }
    bool try_lock() noexcept {
        return !locked_.load(std::memory_order_relaxed) &&
               !locked_.exchange(true, std::memory_order_acquire);
    }
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

  private:
    /// Spins this many reads before yielding the CPU to the (maybe preempted) holder.
    static constexpr int spins_before_yield = 64;

    // Out of line, so that a caller's fast path does not save and restore
    // the registers this loop needs (a dozen instructions per lock).
    [[gnu::noinline, gnu::cold]] void lock_contended() noexcept {
        int spins = 0;
        do {
            while (locked_.load(std::memory_order_relaxed)) {
                if (++spins < spins_before_yield) {
                    relax();
                } else {
                    std::this_thread::yield();
                }
            }
        } while (locked_.exchange(true, std::memory_order_acquire));
    }
    static void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }

    std::atomic<bool> locked_{false};
};

}  // namespace rtkit::sync::detail
