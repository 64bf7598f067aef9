#pragma once
// How many threads the test process has: runtimes promise not to start threads
// they do not need, and the tests hold them to it.
#include <chrono>
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

/// The threads of the test process with no runtime alive, counted before
/// main() (and after one thread was started and joined, so that a
/// sanitizer's helper thread, started with the first extra thread, counts).
inline const int idle_thread_count = [] {
    std::thread([] {}).join();
    return thread_count();
}();

/// thread_count() to compare later counts with. A runtime destroyed just
/// before has joined its threads, but the kernel may not have reaped them yet:
/// it waits (bounded) for the count to fall back to the idle one.
inline int baseline_thread_count() {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (thread_count() > idle_thread_count && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
    return thread_count();
}

}  // namespace rtkit::test
