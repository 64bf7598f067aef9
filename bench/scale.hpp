#pragma once
// rtbench scale: how the costs that grow with the number of tasks grow.
#include "rtkit/runtime_config.hpp"

namespace rtbench {

/// Measures, at sizes 10^3, 10^4, ... up to `max_size` (and at `max_size`), each on a fresh
/// runtime built from `config`:
/// - cancel_chain: cancelling a chain of N nested regions (each level a task
///   that runs the next level in a region of its own and joins it) from the top;
/// - cancel_own_regions: cancelling a region whose N tasks each sit in a
///   region of their own;
/// - shutdown_sleepers: shutting down a runtime with N sleeping tasks;
/// - drain_waiters: N tasks waiting on one channel, woken by its close, until
///   all have ended.
/// Prints one line per curve and size, with ns per task. Returns 0.
int run_scale(const rtkit::runtime_config& config, long max_size);

}  // namespace rtbench
