// Measures W4 (bench/ping_pong.cpp) on a default runtime: prints ns per round
// trip and checks the checksum. Not a test: timings are never asserted.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "ping_pong.hpp"
#include "rtkit/runtime.hpp"

int main(int argc, char** argv) {
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
    rtkit::runtime rt;
    (void)rt.block_on(rtbench_ping_pong(1000));  // warm the frame cache and the plugins
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();  // wall time suffers on a shared machine
    const std::int64_t sum = rt.block_on(rtbench_ping_pong(n));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const bool ok = sum == n * (n + 1) / 2;
    std::printf(
        "ping_pong n=%lld ns_per_round_trip=%.1f cpu_ns_per_round_trip=%.1f checksum=%lld %s\n",
        static_cast<long long>(n), seconds * 1e9 / static_cast<double>(n),
        cpu_seconds * 1e9 / static_cast<double>(n), static_cast<long long>(sum),
        ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
