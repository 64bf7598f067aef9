#pragma once
// An asymmetric fence: a store-then-load pair that needs a full barrier
// between them, where one side runs millions of times and the other rarely.
// The frequent side pays only a compiler barrier (light); the rare side
// (heavy) has the kernel run a full barrier on every thread of the process
// that is running at that moment (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED),
// which costs it a system call and an interrupt per busy CPU.
//
// The guarantee, for a thread F doing `store A; light(); load B` and a
// thread R doing `store B; heavy(); load A`: F's load sees R's store, or R's
// load sees F's store (or both), as with two full fences.

#include <atomic>

namespace rtkit::detail {

/// The frequent side: keeps the compiler from moving loads above the stores
/// before it; the hardware is made to order them by heavy_fence().
inline void light_fence() noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
}

/// True when heavy_fence() works in this process (registers for it on the
/// first call). False on a kernel without membarrier's expedited command
/// (before Linux 4.14), or where a sandbox refuses the call: callers then
/// must not rely on light_fence() at all.
bool heavy_fence_available() noexcept;

/// The rare side. Only after heavy_fence_available() said true.
void heavy_fence() noexcept;

}  // namespace rtkit::detail
