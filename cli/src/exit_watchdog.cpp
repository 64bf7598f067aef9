#include "exit_watchdog.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "rtkit/script/value.hpp"

namespace rtctl {
namespace {

std::string shown(exit_watchdog::clock::duration d) {
    return rtkit::script::to_display(
        rtkit::script::value(std::chrono::duration_cast<std::chrono::nanoseconds>(d)));
}

/// Straight to the file descriptor: the watchdog must not wait for a stream
/// that a stuck thread may hold.
void write_stderr(const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

exit_watchdog::exit_watchdog(std::optional<clock::duration> time_limit, clock::duration grace,
                             std::function<std::string()> describe)
    : time_limit_(time_limit),
      grace_(grace),
      describe_(std::move(describe)),
      thread_([this] { watch(); }) {}

exit_watchdog::~exit_watchdog() {
    {
        std::lock_guard guard(lock_);
        disarmed_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void exit_watchdog::script_stopped() {
    {
        std::lock_guard guard(lock_);
        if (stopped_at_) return;
        stopped_at_ = clock::now();
    }
    changed_.notify_all();
}

void exit_watchdog::run_ended() {
    std::lock_guard guard(lock_);
    run_ended_ = true;
}

void exit_watchdog::watch() {
    std::unique_lock guard(lock_);
    while (!disarmed_) {
        std::optional<clock::time_point> deadline;
        if (time_limit_) deadline = started_ + *time_limit_ + grace_;
        if (stopped_at_)
            deadline = std::min(deadline.value_or(clock::time_point::max()), *stopped_at_ + grace_);
        if (!deadline) {
            changed_.wait(guard);
            continue;
        }
        if (clock::now() < *deadline) {
            changed_.wait_until(guard, *deadline);
            continue;
        }
        const bool stopped = stopped_at_.has_value(), ended = run_ended_;
        guard.unlock();
        give_up(stopped, ended);
    }
}

void exit_watchdog::give_up(bool stopped, bool ended) {
    std::string text;
    if (stopped)
        text = "rtctl: note: the script was stopped " + shown(grace_) +
               " ago and has not ended yet: rtctl exits without waiting for it\n";
    else if (ended)
        text = "rtctl: error: the runtime did not shut down within " + shown(grace_) +
               " of the time limit: rtctl exits without waiting for it\n";
    else
        text = "error: the script ran longer than its time limit of " + shown(*time_limit_) +
               " (rtctl run --max-time D raises it), and the runtime did not stop it within " +
               shown(grace_) + " more: rtctl exits without waiting for it\n";
    write_stderr(text + describe_());
    std::_Exit(1);
}

}  // namespace rtctl
