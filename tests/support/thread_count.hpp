#pragma once
// How many threads the test process has: runtimes promise not to start threads
// they do not need, and the tests hold them to it.
#include <fstream>
#include <string>

namespace rtkit::test {

/// The process's thread count now (Linux: /proc/self/status), or -1.
inline int thread_count() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    return -1;
}

}  // namespace rtkit::test
