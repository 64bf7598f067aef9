#include "host_costs.hpp"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace rtbench {

namespace {

/// The first line of a sysfs file, or "unknown" where it cannot be read.
std::string first_line_of(const char* path) {
    std::ifstream file(path);
    std::string line;
    if (!std::getline(file, line) || line.empty()) return "unknown";
    return line;
}

/// Nanoseconds per call of `operation`, over `rounds` calls.
template <class Operation>
double nanoseconds_per_call(int rounds, Operation operation) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds; ++i)
        operation();
    const std::chrono::duration<double, std::nano> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / rounds;
}

}  // namespace

int print_host_costs() {
    // getppid: a system call that does no work, so what it costs is the
    // entry and exit (what page-table isolation makes dear).
    const double syscall_ns = nanoseconds_per_call(200'000, [] { (void)syscall(SYS_getppid); });
    timespec now{};
    const double clock_ns =
        nanoseconds_per_call(1'000'000, [&] { clock_gettime(CLOCK_MONOTONIC, &now); });
    std::printf(
        "host clocksource=%s meltdown=\"%s\" syscall_ns=%.0f clock_gettime_ns=%.1f",
        first_line_of("/sys/devices/system/clocksource/clocksource0/current_clocksource").c_str(),
        first_line_of("/sys/devices/system/cpu/vulnerabilities/meltdown").c_str(), syscall_ns,
        clock_ns);
#if defined(__x86_64__)
    volatile std::uint64_t last = 0;
    std::printf(" rdtsc_ns=%.1f", nanoseconds_per_call(1'000'000, [&] { last = __rdtsc(); }));
#endif
    std::printf("\n");
    return 0;
}

}  // namespace rtbench
