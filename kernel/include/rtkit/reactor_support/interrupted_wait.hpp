#pragma once
// rtkit::reactor_support::wait_through_interrupts: a reactor's blocking wait
// that ends only for an event, a wake() or the timeout, for plugin authors.
//
// Public API, header-only. EINTR comes without any signal too (io_uring task
// work queued to the waiting thread interrupts epoll_wait, poll and kevent),
// and reactor::poll must not return early for it.
#include <algorithm>
#include <cerrno>
#include <chrono>

#include "rtkit/time.hpp"

namespace rtkit::reactor_support {

/// Calls `wait(timeout)` (a system call returning -1 with errno set on
/// failure) again while it fails with EINTR, each time with what is left of
/// `timeout` (zero stays zero, a negative one waits without limit), and
/// returns what its last call returned.
template <class Wait>
int wait_through_interrupts(rtkit::duration timeout, Wait wait) {
    const auto deadline = rtkit::saturating_add(std::chrono::steady_clock::now(), timeout);
    int n = wait(timeout);
    while (n < 0 && errno == EINTR) {
        rtkit::duration left = timeout;
        if (timeout.count() > 0)
            left = std::max(rtkit::duration{0}, std::chrono::duration_cast<rtkit::duration>(
                                                    deadline - std::chrono::steady_clock::now()));
        n = wait(left);
    }
    return n;
}

}  // namespace rtkit::reactor_support
