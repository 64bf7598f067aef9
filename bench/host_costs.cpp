#include "host_costs.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

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

/// Pins the calling thread to `cpu`; false where it cannot.
bool pin_to(unsigned cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

/// Nanoseconds for a cache line to go from CPU 0 to CPU 1 and back: two
/// threads, one on each, take turns writing one word. A task woken on
/// another worker pays this, so multi-thread figures move with it. At
/// most 100 ms of rounds; negative where there are not two CPUs to pin to.
double cache_line_round_trip_ns() {
    if (std::thread::hardware_concurrency() < 2) return -1;
    alignas(64) std::atomic<std::int64_t> turn{0};
    constexpr std::int64_t stop = -1;
    std::thread answerer([&] {
        if (!pin_to(1)) {
            turn.store(stop);
            return;
        }
        // An odd value is a question not answered yet; the answer is the
        // next (even) value.
        for (;;) {
            const std::int64_t now = turn.load(std::memory_order_acquire);
            if (now == stop) return;
            if (now % 2 == 1) turn.store(now + 1, std::memory_order_release);
        }
    });
    double result = -1;
    if (pin_to(0)) {
        const auto start = std::chrono::steady_clock::now();
        const auto until = start + std::chrono::milliseconds(100);
        std::int64_t rounds = 0;
        for (;; ++rounds) {
            if ((rounds & 1023) == 0 && std::chrono::steady_clock::now() >= until) break;
            std::int64_t answered = 2 * rounds;
            const std::int64_t question = answered + 1;
            // The answerer may have failed to pin and stopped: then give up.
            if (!turn.compare_exchange_strong(answered, question, std::memory_order_acq_rel)) break;
            while (turn.load(std::memory_order_acquire) == question) {
            }
        }
        const std::chrono::duration<double, std::nano> elapsed =
            std::chrono::steady_clock::now() - start;
        if (rounds > 0) result = elapsed.count() / static_cast<double>(rounds);
    }
    turn.store(stop, std::memory_order_release);
    answerer.join();
    return result;
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
    if (const double round_trip = cache_line_round_trip_ns(); round_trip >= 0)
        std::printf(" cpu0_cpu1_round_trip_ns=%.0f", round_trip);
#if defined(__x86_64__)
    volatile std::uint64_t last = 0;
    std::printf(" rdtsc_ns=%.1f", nanoseconds_per_call(1'000'000, [&] { last = __rdtsc(); }));
#endif
    std::printf("\n");
    return 0;
}

}  // namespace rtbench
