#pragma once
// The loops of a worker driven by a block_on caller or the current-thread
// driver's background thread: they dispatch until told to stop, and park in
// the reactor when idle. They read what the workers share (the shutdown
// flag, the registered I/O), so they sit above both worker.hpp and
// worker_group.hpp.
#include <algorithm>
#include <optional>

#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

template <class Stop>
void worker::run_loop_until(Stop&& stop, bool return_when_idle, std::size_t polls_per_look) {
    while (!group_.shutting_down() && !stop()) {
        // None: it maintained, and nothing was queued.
        if (run_batch(polls_per_look) > 0) continue;
        if (has_runnable()) continue;
        if (return_when_idle) {
            // Readiness that already arrived counts as runnable work; waiting for
            // more does not. (A parking worker gets both from one poll.)
            if (group_.has_io() && poll_reactor(duration{0}) > 0) continue;
            return;
        }
        park(stop);
    }
}

template <class Stop>
bool worker::poll_before_parking(Stop& stop, duration timeout) {
    const duration polling = group_.poll_before_park();
    // The virtual clock stands still while a task awaits I/O: a poll bounded
    // by it would last until the I/O came.
    if (polling <= duration{0} || !group_.has_io() || clock_.is_virtual()) return false;
    const instant until = now() + (timeout < duration{0} ? polling : std::min(polling, timeout));
    do {
        if (poll_reactor(duration{0}) > 0 || inbox_may_have_items() || stop()) return true;
    } while (now() < until);
    return false;
}

template <class Stop>
void worker::park(Stop& stop, std::optional<instant> limit) {
    std::optional<instant> deadline = next_deadline();
    if (limit && (!deadline || *limit < *deadline)) deadline = limit;
    duration timeout{-1};
    if (clock_.is_virtual()) {
        // Nothing can run before the next deadline: virtual time jumps there,
        // unless a task awaits I/O, which only real time brings (then the
        // clock stands still until it comes, or a wake).
        if (deadline && !group_.has_io()) {
            if (!inbox_may_have_items() && !stop()) clock_.advance_to(*deadline);
            return;
        }
        deadline.reset();
    }
    if (deadline) timeout = std::max(duration{0}, *deadline - now());
    if (timeout != duration{0} && poll_before_parking(stop, timeout)) return;
    parker_.announce(parker::in_reactor);
    if (!inbox_may_have_items() && !stop()) {
        const std::int64_t trace_began = trace_ ? trace_now() : 0;
        const instant parked_at = now();
        poll_reactor(timeout);
        counters_.parks.add();
        counters_.parked_ns.add(static_cast<std::uint64_t>((now() - parked_at).count()));
        if (trace_) trace_park(trace_began);
    }
    parker_.clear();
}

}  // namespace rtkit::detail
