#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "ping_pong.hpp"
#include "rtkit/rtkit.hpp"

namespace rtbench {

namespace {

using clock_type = std::chrono::steady_clock;
using rtkit::task;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

// W1 and W2: the root spawns n tasks that return their index, then joins them in order.
task<std::int64_t> index_task(std::int64_t i) {
    co_return i;
}

task<std::int64_t> spawn_join(std::int64_t n) {
    std::vector<rtkit::join_handle<std::int64_t>> handles;
    handles.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        handles.push_back(rtkit::spawn(index_task(i)));
    std::int64_t sum = 0;
    for (auto& h : handles)
        sum += (co_await std::move(h)).value();
    co_return sum;
}

// W3: tasks that yield `yields` times each, then return 1.
task<std::int64_t> yielder(int yields) {
    for (int i = 0; i < yields; ++i)
        co_await rtkit::yield_now();
    co_return 1;
}

task<std::int64_t> yield_storm(int tasks, int yields) {
    std::vector<rtkit::join_handle<std::int64_t>> handles;
    handles.reserve(static_cast<std::size_t>(tasks));
    for (int i = 0; i < tasks; ++i)
        handles.push_back(rtkit::spawn(yielder(yields)));
    std::int64_t sum = 0;
    for (auto& h : handles)
        sum += (co_await std::move(h)).value();
    co_return sum;
}

task<std::int64_t> ready_value(std::int64_t v) {
    co_return v;
}

// W5 and W9: n operations, each in a 10 s timeout. W5's completes at once (the
// timer may be skipped); W9's after one yield (the timer is armed, then cancelled).
task<std::int64_t> after_one_yield(std::int64_t v) {
    co_await rtkit::yield_now();
    co_return v;
}

template <class Operation>
task<std::int64_t> in_timeouts(std::int64_t n, Operation operation) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += *co_await rtkit::timeout(std::chrono::seconds(10), operation(i));
    co_return sum;
}

// W6: n tasks each sleep a pseudo-random 1-100 ms and record how late they
// woke, on the runtime's clock. The draws are WORKLOADS.md's: xorshift64
// seeded with 42, task i takes the i-th, d = 1 + x % 100 ms.
task<std::int64_t> sleeper(std::int64_t ms, std::int64_t& late_ns) {
    const rtkit::instant deadline = rtkit::now() + std::chrono::milliseconds(ms);
    co_await rtkit::cx::current().sleep_until(deadline);
    late_ns = (rtkit::now() - deadline).count();
    co_return ms;
}

task<std::int64_t> sleep_storm(std::int64_t n, std::vector<std::int64_t>& late_ns) {
    std::vector<rtkit::join_handle<std::int64_t>> handles;
    handles.reserve(static_cast<std::size_t>(n));
    std::uint64_t x = 42;
    for (std::int64_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const auto ms = static_cast<std::int64_t>(1 + x % 100);
        handles.push_back(rtkit::spawn(sleeper(ms, late_ns[static_cast<std::size_t>(i)])));
    }
    std::int64_t sum = 0;
    for (auto& h : handles)
        sum += (co_await std::move(h)).value();
    co_return sum;
}

/// "late_p50_us=... late_p99_us=... late_max_us=...", percentiles as the peers
/// take them: the element at round((n - 1) * p) of the sorted values.
std::string lateness_fields(std::vector<std::int64_t> late_ns) {
    std::sort(late_ns.begin(), late_ns.end());
    auto at = [&](double p) {
        const auto i =
            static_cast<std::size_t>(std::lround(static_cast<double>(late_ns.size() - 1) * p));
        return static_cast<double>(late_ns[i]) / 1e3;
    };
    char text[128];
    std::snprintf(text, sizeof text, "late_p50_us=%.1f late_p99_us=%.1f late_max_us=%.1f", at(0.50),
                  at(0.99), static_cast<double>(late_ns.back()) / 1e3);
    return text;
}

// W8: block_on on an already-complete future, n times from this thread.
std::int64_t block_on_ready(rtkit::runtime& rt, std::int64_t n) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += rt.block_on(ready_value(i));
    return sum;
}

/// One workload: its id, its name in the result line, its size, and how to
/// run it (returning the checksum, and setting `extra` fields if it has any).
struct workload {
    std::string_view id;
    std::string_view name;
    std::int64_t n;
    std::int64_t (*run)(rtkit::runtime& rt, std::int64_t n, std::string& extra);
};

constexpr workload workloads[] = {
    {"W1", "spawn_join_st", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) { return rt.block_on(spawn_join(n)); }},
    {"W2", "spawn_join_mt", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) { return rt.block_on(spawn_join(n)); }},
    {"W3", "yield_storm", 10'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) {
         return rt.block_on(yield_storm(1000, static_cast<int>(n / 1000)));
     }},
    {"W4", "ping_pong", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) {
         return rt.block_on(rtbench_ping_pong(n));
     }},
    {"W5", "timeout_ready", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) {
         return rt.block_on(in_timeouts(n, ready_value));
     }},
    {"W6", "sleep_storm", 100'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string& extra) {
         std::vector<std::int64_t> late_ns(static_cast<std::size_t>(n));
         const std::int64_t sum = rt.block_on(sleep_storm(n, late_ns));
         extra = lateness_fields(std::move(late_ns));
         return sum;
     }},
    {"W8", "block_on_ready", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) { return block_on_ready(rt, n); }},
    {"W9", "timeout_pending", 1'000'000,
     [](rtkit::runtime& rt, std::int64_t n, std::string&) {
         return rt.block_on(in_timeouts(n, after_one_yield));
     }},
};

}  // namespace

std::string_view known_workloads() {
    return "W1 W2 W3 W4 W5 W6 W8 W9";
}

void shape_runtime(std::string_view id, rtkit::runtime_config& config) {
    // W2 is W1 on two worker threads; a multi_thread configuration keeps its
    // own worker count.
    if (id == "W2" && config.flavor != "multi_thread") {
        config.flavor = "multi_thread";
        config.workers = 2;
    }
}

result run_workload(std::string_view id, rtkit::runtime& rt) {
    for (const workload& w : workloads) {
        if (w.id != id) continue;
        result r;
        r.workload = std::string(w.name);
        r.n = static_cast<std::uint64_t>(w.n);
        const auto start = clock_type::now();
        r.checksum = w.run(rt, w.n, r.extra);
        r.seconds = seconds_since(start);
        return r;
    }
    throw std::invalid_argument("unknown workload '" + std::string(id) + "': expected one of " +
                                std::string(known_workloads()));
}

}  // namespace rtbench
