#pragma once
// Runs the real rtctl binary and captures what it did.
#include <string>
#include <vector>

struct rtctl_result {
    int status = -1;  ///< exit status, or 128 + signal when it was killed
    std::string out;
    std::string err;
};

/// Runs RTCTL_PATH with `args` in the source directory, stdin closed.
rtctl_result run_rtctl(const std::vector<std::string>& args);
