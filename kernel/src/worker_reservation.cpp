#include "worker_reservation.hpp"

#include <algorithm>

namespace rtkit::detail {

namespace {
/// The most idle returns a revocation makes the next grant wait for.
constexpr std::uint32_t max_backoff = 4096;
}  // namespace

void worker_reservation::grant() noexcept {
    if (returns_to_skip_ > 0) {
        --returns_to_skip_;
        return;
    }
    if (!heavy_fence_available()) return;
    revoked_.store(false, std::memory_order_relaxed);
    owner_.store(kernel_thread_number(), std::memory_order_relaxed);
}

bool worker_reservation::revoke() noexcept {
    const std::uint64_t owner = owner_.load(std::memory_order_relaxed);
    if (owner == 0) return false;
    const bool first = !revoked_.load(std::memory_order_relaxed);
    revoked_.store(true, std::memory_order_relaxed);
    // On the owner's own thread `inside` needs no fence: it is a borrow
    // further up this thread's stack (a root that shuts the runtime down).
    if (owner != kernel_thread_number()) {
        if (first) {
            backoff_ = std::min(2 * backoff_ + 1, max_backoff);
            returns_to_skip_ = backoff_;
        }
        heavy_fence();
        RTKIT_CHAOS_POINT(reservation_revoked);
    }
    if (inside_.load(std::memory_order_acquire)) return true;
    owner_.store(0, std::memory_order_relaxed);
    return false;
}

}  // namespace rtkit::detail
