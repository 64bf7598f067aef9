#pragma once
// Runs a scenario that would hang if the code under test deadlocks: a hang
// must fail the test binary, not stall the suite until CTest's timeout.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

namespace rtkit::test {

/// Runs `scenario` on a thread of its own (thread-local runtime state stays
/// there) and aborts the process, naming `what`, if it has not finished after
/// `limit`. Rethrows what the scenario threw.
template <class F>
void run_or_abort_on_deadlock(const char* what, F scenario,
                              std::chrono::seconds limit = std::chrono::seconds(30)) {
    std::packaged_task<void()> job(std::move(scenario));
    auto done = job.get_future();
    std::thread runner(std::move(job));
    if (done.wait_for(limit) != std::future_status::ready) {
        std::fprintf(stderr, "deadlock: %s\n", what);
        std::abort();
    }
    runner.join();
    done.get();
}

}  // namespace rtkit::test
