#pragma once
// How many threads the test process has: runtimes promise not to start threads
// they do not need, and the tests hold them to it.
#include <fstream>
#include <string>
#include <thread>

namespace rtkit::test {

/// The process's thread count now (Linux: /proc/self/status), or -1.
inline int thread_count() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    return -1;
}

/// thread_count() to compare later counts with. It first starts and joins a
/// thread, so a sanitizer's helper thread (started with the first extra
/// thread) is already counted.
inline int baseline_thread_count() {
    std::thread([] {}).join();
    return thread_count();
}

}  // namespace rtkit::test
