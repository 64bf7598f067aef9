#pragma once
// rtctl run --progress: a status line on the terminal, redrawn while the
// script runs and erased at its end.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "rtkit/metrics.hpp"

namespace rtkit {
class runtime;
}

namespace rtctl {

/// The line's text for one snapshot: elapsed time, tasks alive and done,
/// timers pending, descriptors registered with the reactor, polls.
std::string progress_text(const rtkit::runtime_metrics& metrics, std::chrono::nanoseconds elapsed);

/// Draws progress_text on stderr (which must be a terminal) at once and then
/// five times a second, from a thread of its own that reads
/// runtime::metrics(); the destructor stops it and erases the line. The
/// runtime must outlive it.
class progress_line {
  public:
    progress_line(const rtkit::runtime& runtime, std::chrono::steady_clock::time_point started);
    ~progress_line();
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;

  private:
    void draw_until_stopped(std::stop_token stop);

    const rtkit::runtime& runtime_;
    std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable_any stopped_;
    std::jthread drawer_;  // last: it starts once the members above exist
};

}  // namespace rtctl
