#include "outside_wakes.hpp"

#include <atomic>
#include <mutex>
#include <thread>

namespace rtkit::detail {

namespace {

// Two counts, as two generations: a wake counts itself in the one `epoch`
// names. wait_out_outside_wakes() moves new wakes to the other count, then
// waits for the old one to drain, and does so twice, so that it waits for
// each count once while new wakes keep coming in the other. (One count under
// a storm of wakes from many threads might never be seen at zero.)
std::atomic<std::uint32_t> epoch{0};
std::atomic<long> counted_in[2] = {0, 0};
std::mutex one_waiter_at_a_time;

}  // namespace

// Why a wake touches no freed runtime: the waiter reads each count with a
// read-modify-write. A wake counted in before that read makes the count
// non-zero, and the waiter waits until it has counted itself out (release,
// read by the waiter's acquire: all it did happened before the runtime
// goes). A wake counted in after that read takes the count from the
// waiter's write (acquire of its release): every task completion the waiter
// saw before is visible to the wake, which finds its task complete.

outside_wake::outside_wake() noexcept : slot_(epoch.load(std::memory_order_relaxed) & 1) {
    counted_in[slot_].fetch_add(1, std::memory_order_acq_rel);
}

outside_wake::~outside_wake() {
    counted_in[slot_].fetch_sub(1, std::memory_order_release);
}

void wait_out_outside_wakes() noexcept {
    std::lock_guard lock(one_waiter_at_a_time);
    for (int round = 0; round < 2; ++round) {
        const std::uint32_t old = epoch.fetch_add(1, std::memory_order_acq_rel) & 1;
        while (counted_in[old].fetch_add(0, std::memory_order_acq_rel) != 0)
            std::this_thread::yield();
    }
}

}  // namespace rtkit::detail
