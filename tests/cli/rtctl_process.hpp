#pragma once
// Runs the real rtctl binary and captures what it did.
#include <string>
#include <vector>

struct rtctl_result {
    int status = -1;  ///< exit status, or 128 + signal when it was killed
    std::string out;
    std::string err;
};

/// How the child runs, beyond its arguments.
struct rtctl_limits {
    /// What standard input reads (a file, a FIFO, /dev/zero).
    std::string stdin_path = "/dev/null";
    /// The child is killed by SIGALRM (status 128 + 14) after this long, so a
    /// test whose rtctl hangs fails instead of hanging the suite.
    unsigned timeout_seconds = 120;
    /// When nonzero, the child's address space is capped (RLIMIT_AS) so that
    /// an unbounded read fails fast instead of exhausting the machine. Ignored
    /// in sanitizer builds, whose shadow memory needs a huge address space.
    unsigned long memory_limit_bytes = 0;
};

/// The whole content of the file at `path` (empty if it cannot be read).
std::string slurp(const std::string& path);

/// Whether `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Runs RTCTL_PATH with `args` in the source directory.
rtctl_result run_rtctl(const std::vector<std::string>& args, const rtctl_limits& limits = {});
/// Runs the program at `path` with `args` in the source directory.
rtctl_result run_program(const std::string& path, const std::vector<std::string>& args,
                         const rtctl_limits& limits = {});
