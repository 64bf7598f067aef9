#pragma once
// rtctl run --progress: a status line on the terminal, redrawn while the
// script runs and erased at its end.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <streambuf>
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

    /// Writes `text` to `to` (flushed) with the line erased first, so that
    /// output to the same terminal never lands beside it; the next redraw
    /// puts the line back below.
    void write_above(std::ostream& to, const std::string& text);

  private:
    void draw_until_stopped(std::stop_token stop);

    const rtkit::runtime& runtime_;
    std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable_any stopped_;
    bool drawn_ = false;   // the line is on the terminal now
    std::jthread drawer_;  // last: it starts once the members above exist
};

/// The stream buffer of the script's output and errors in a run that may
/// show a progress line: what a flush brings goes out through
/// progress_line::write_above while a line is attached, straight to the
/// target otherwise. Its writers take turns (the interpreter's output lock);
/// attach() waits for a write in progress, so that once it returns the old
/// line is no longer used (tasks still unwinding after a stopped run may
/// print while the line is taken down).
class output_beside_progress : public std::streambuf {
  public:
    explicit output_beside_progress(std::ostream& target) : target_(target) {}
    void attach(progress_line* line) {
        std::lock_guard lock(mutex_);
        line_ = line;
    }

  protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* text, std::streamsize size) override;
    int sync() override;

  private:
    std::ostream& target_;
    std::mutex mutex_;  // line_, against a write in progress
    progress_line* line_ = nullptr;
    std::string pending_;
};

}  // namespace rtctl
