#pragma once
// rtbench soak: a mixed load on one runtime for a while, then checks that
// every task, descriptor and byte of memory it used was given back.
#include <chrono>

#include "rtkit/runtime.hpp"

namespace rtbench {

/// Runs the soak on `rt` for `length` (whatever flavor the runtime has),
/// prints its figures and the result of each check, and returns 0 when every
/// check holds, 1 otherwise. With `trace_every` above zero it also prints
/// resident memory and malloc's figures at that interval.
int run_soak(rtkit::runtime& rt, std::chrono::seconds length, std::chrono::seconds trace_every);

}  // namespace rtbench
