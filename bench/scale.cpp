#include "scale.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "rtkit/rtkit.hpp"

namespace rtbench {

namespace {

using clock_type = std::chrono::steady_clock;
using rtkit::task;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Waits, yielding, until `reached` counts `n`.
task<void> until_reached(const std::atomic<long>& reached, long n) {
    while (reached.load(std::memory_order_relaxed) < n)
        co_await rtkit::yield_now();
}

task<void> chain_level(long depth, std::atomic<long>& bottom_reached) {
    if (depth == 0) {
        bottom_reached.fetch_add(1, std::memory_order_relaxed);
        co_await rtkit::sleep(std::chrono::hours(1));
        co_return;
    }
    co_await rtkit::cx::current().region([&](rtkit::cx inner) -> task<void> {
        auto next = inner.spawn(chain_level(depth - 1, bottom_reached));
        (void)co_await std::move(next);
    });
}

/// Seconds from cancelling the top of a chain of `n` regions until it ended.
double cancel_chain(rtkit::runtime& rt, long n) {
    return rt.block_on([n]() -> task<double> {
        std::atomic<long> bottom_reached{0};
        auto top = rtkit::spawn(chain_level(n, bottom_reached));
        co_await until_reached(bottom_reached, 1);
        const auto start = clock_type::now();
        top.cancel();
        (void)co_await std::move(top);
        co_return seconds_since(start);
    }());
}

/// Seconds from cancelling a region of `n` tasks, each in a region of its
/// own, until the region closed.
double cancel_own_regions(rtkit::runtime& rt, long n) {
    return rt.block_on([n]() -> task<double> {
        clock_type::time_point start;
        co_await rtkit::cx::current().region([&](rtkit::cx parent) -> task<void> {
            std::atomic<long> asleep{0};
            for (long i = 0; i < n; ++i)
                (void)parent.spawn([&asleep](rtkit::cx) -> task<void> {
                    co_await rtkit::cx::current().region([&asleep](rtkit::cx) -> task<void> {
                        asleep.fetch_add(1, std::memory_order_relaxed);
                        co_await rtkit::sleep(std::chrono::hours(1));
                    });
                });
            co_await until_reached(asleep, n);
            start = clock_type::now();
            parent.cancel_region();
        });
        co_return seconds_since(start);
    }());
}

/// Seconds that shutting down a runtime with `n` sleeping tasks takes.
double shutdown_sleepers(rtkit::runtime& rt, long n) {
    rt.block_on([n]() -> task<void> {
        std::atomic<long> asleep{0};
        for (long i = 0; i < n; ++i)
            (void)rtkit::spawn([](std::atomic<long>& count) -> task<void> {
                count.fetch_add(1, std::memory_order_relaxed);
                co_await rtkit::sleep(std::chrono::hours(1));
            }(asleep));
        co_await until_reached(asleep, n);
    }());
    const auto start = clock_type::now();
    rt.shutdown();
    return seconds_since(start);
}

/// Seconds from releasing the permits of a semaphore `n` tasks wait on
/// until all have ended.
double drain_waiters(rtkit::runtime& rt, long n) {
    return rt.block_on([n]() -> task<double> {
        rtkit::sync::semaphore gate(0);
        std::atomic<long> waiting{0};
        std::vector<rtkit::join_handle<void>> waiters;
        waiters.reserve(static_cast<std::size_t>(n));
        for (long i = 0; i < n; ++i)
            waiters.push_back(rtkit::spawn(
                [](rtkit::sync::semaphore& on, std::atomic<long>& count) -> task<void> {
                    count.fetch_add(1, std::memory_order_relaxed);
                    auto permit = co_await on.acquire();
                }(gate, waiting)));
        co_await until_reached(waiting, n);
        const auto start = clock_type::now();
        gate.release(static_cast<std::size_t>(n));
        for (auto& w : waiters)
            (void)co_await std::move(w);
        co_return seconds_since(start);
    }());
}

struct curve {
    std::string_view name;
    double (*measure)(rtkit::runtime&, long);
};

/// The size measured after `n`: ten times it, or `max_size` when that is
/// less; 0 after `max_size`.
long next_size(long n, long max_size) {
    return n >= max_size ? 0 : std::min(n * 10, max_size);
}

}  // namespace

int run_scale(const rtkit::runtime_config& config, long max_size) {
    const curve curves[] = {{"cancel_chain", &cancel_chain},
                            {"cancel_own_regions", &cancel_own_regions},
                            {"shutdown_sleepers", &shutdown_sleepers},
                            {"drain_waiters", &drain_waiters}};
    for (const curve& c : curves) {
        double previous = 0;
        for (long n = 1000; n != 0; n = next_size(n, max_size)) {
            rtkit::runtime rt(config);
            const double seconds = c.measure(rt, n);
            std::printf("scale=%.*s n=%ld seconds=%.6f ns_per_task=%.1f growth=%s\n",
                        static_cast<int>(c.name.size()), c.name.data(), n, seconds,
                        seconds * 1e9 / static_cast<double>(n),
                        previous > 0 ? std::to_string(seconds / previous).c_str() : "-");
            std::fflush(stdout);
            previous = seconds;
        }
    }
    return 0;
}

}  // namespace rtbench
