#include "progress_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include <rtkit/rtkit.hpp>

namespace rtctl {
namespace {

/// Carriage return, then erase to the end of the line (ANSI/VT100).
constexpr std::string_view erase_line = "\r\033[K";

void write_stderr(std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
        if (n <= 0) return;  // a terminal that went away: nothing to show it on
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

/// Wider than the terminal, the line would wrap and the carriage return
/// would no longer reach its start: cut it one column short.
std::string fit_to_terminal(std::string text) {
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 &&
        text.size() >= size.ws_col)
        text.resize(size.ws_col - 1u);
    return text;
}

}  // namespace

std::string progress_text(const rtkit::runtime_metrics& m, std::chrono::nanoseconds elapsed) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1fs", static_cast<double>(elapsed.count()) / 1e9);
    const std::uint64_t done = m.tasks_completed + m.tasks_cancelled + m.tasks_panicked;
    return std::string("rtctl: ") + seconds + " | tasks " + std::to_string(m.tasks_alive) +
           " alive, " + std::to_string(done) + " done | timers " +
           std::to_string(m.timers_pending) + " pending | io " +
           std::to_string(m.io_registrations) + " registered | " + std::to_string(m.polls) +
           " polls";
}

progress_line::progress_line(const rtkit::runtime& runtime,
                             std::chrono::steady_clock::time_point started)
    : runtime_(runtime),
      started_(started),
      drawer_([this](std::stop_token stop) { draw_until_stopped(std::move(stop)); }) {}

progress_line::~progress_line() {
    drawer_.request_stop();
    drawer_.join();
    write_stderr(erase_line);
}

void progress_line::draw_until_stopped(std::stop_token stop) {
    constexpr auto period = std::chrono::milliseconds(200);
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
        const auto elapsed = std::chrono::steady_clock::now() - started_;
        write_stderr(std::string(erase_line) +
                     fit_to_terminal(progress_text(runtime_.metrics(), elapsed)));
        drawn_ = true;
        stopped_.wait_for(lock, stop, period, [] { return false; });
    }
}

void progress_line::write_above(std::ostream& to, const std::string& text) {
    std::lock_guard lock(mutex_);
    if (drawn_) write_stderr(erase_line);
    drawn_ = false;
    to << text << std::flush;
}

output_beside_progress::int_type output_beside_progress::overflow(int_type c) {
    if (!traits_type::eq_int_type(c, traits_type::eof())) pending_ += traits_type::to_char_type(c);
    return traits_type::not_eof(c);
}

std::streamsize output_beside_progress::xsputn(const char* text, std::streamsize size) {
    pending_.append(text, static_cast<std::size_t>(size));
    return size;
}

int output_beside_progress::sync() {
    std::lock_guard lock(mutex_);
    if (line_)
        line_->write_above(target_, pending_);
    else
        target_ << pending_ << std::flush;
    pending_.clear();
    return target_ ? 0 : -1;
}

}  // namespace rtctl
