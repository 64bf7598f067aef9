#pragma once
// For the EINTR variants of tests/conformance/variant_reactor.cpp only: found
// before the real header when the epoll plugin is built into them, so that
// its wait does what a reactor that forgot about EINTR would do.
//   VARIANT_EINTR_IS_ERROR     the failed wait is returned: poll() throws
//   VARIANT_EINTR_NOT_RETRIED  the interrupted wait counts as no events: poll()
//                              returns early
#include <cerrno>

#include "rtkit/time.hpp"

namespace rtkit::reactor_support {

template <class Wait>
int wait_through_interrupts(rtkit::duration timeout, Wait wait) {
    const int n = wait(timeout);
#ifdef VARIANT_EINTR_NOT_RETRIED
    if (n < 0 && errno == EINTR) return 0;
#endif
    return n;
}

}  // namespace rtkit::reactor_support
