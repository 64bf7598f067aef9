#include "parker.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

#include "rtkit/detail/chaos.hpp"

namespace rtkit::detail {

void parker::wait_on_futex(duration timeout) noexcept {
    timespec limit{};
    timespec* limit_ptr = nullptr;
    if (timeout.count() >= 0) {
        limit.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
        limit.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
        limit_ptr = &limit;
    }
    // Returns at once if unpark() already moved the word off on_futex; a
    // spurious return only costs the caller one more look for work.
    ::syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAIT_PRIVATE, on_futex, limit_ptr,
              nullptr, 0);
    clear();
}

void parker::unpark() noexcept {
    RTKIT_CHAOS_POINT(unparking);
    int s = state_.load(std::memory_order_seq_cst);
    switch (s) {
        case resting:
            if (on_wake_resting) on_wake_resting();
            break;
        case in_reactor:
            io_.wake();
            break;
        case on_futex:
            if (state_.compare_exchange_strong(s, running, std::memory_order_seq_cst))
                ::syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, 1,
                          nullptr, nullptr, 0);
            break;
        default:
            break;  // running: it will see the new work before it waits
    }
}

}  // namespace rtkit::detail
