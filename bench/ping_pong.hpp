#pragma once
// W4 of shared/bench/WORKLOADS.md: ping-pong over two bounded channels.
#include <cstdint>

#include "rtkit/task.hpp"

/// Two tasks exchange a 64-bit counter over two channels of capacity 1 (a->b,
/// b->a) for `round_trips` round trips: a sends its counter, b replies v+1, a
/// keeps the reply and sums it. Returns the sum, n(n+1)/2. Run it as a
/// block_on root; both ends are spawned tasks, so the measured path is the
/// worker's wake and dispatch, not the root's.
rtkit::task<std::int64_t> rtbench_ping_pong(std::int64_t round_trips);
