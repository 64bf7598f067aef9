#include "workloads.hpp"

#include <chrono>
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

// W1: the root spawns n tasks that return their index, then joins them in order.
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

// W5: an already-complete operation in a 10 s timeout, n times.
task<std::int64_t> timeout_ready(std::int64_t n) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += *co_await rtkit::timeout(std::chrono::seconds(10), ready_value(i));
    co_return sum;
}

// W9: an operation that completes after one yield, in a 10 s timeout: the
// timer is really armed and then cancelled.
task<std::int64_t> after_one_yield(std::int64_t v) {
    co_await rtkit::yield_now();
    co_return v;
}

task<std::int64_t> timeout_pending(std::int64_t n) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sum += *co_await rtkit::timeout(std::chrono::seconds(10), after_one_yield(i));
    co_return sum;
}

}  // namespace

std::string_view known_workloads() {
    return "W1 W3 W4 W5 W8 W9";
}

result run_workload(std::string_view id, rtkit::runtime& rt) {
    result r;
    auto start = clock_type::now();
    if (id == "W1") {
        r.workload = "spawn_join_st";
        r.n = 1'000'000;
        start = clock_type::now();
        r.checksum = rt.block_on(spawn_join(static_cast<std::int64_t>(r.n)));
    } else if (id == "W3") {
        r.workload = "yield_storm";
        r.n = 10'000'000;
        start = clock_type::now();
        r.checksum = rt.block_on(yield_storm(1000, 10'000));
    } else if (id == "W4") {
        r.workload = "ping_pong";
        r.n = 1'000'000;
        start = clock_type::now();
        r.checksum = rt.block_on(rtbench_ping_pong(static_cast<std::int64_t>(r.n)));
    } else if (id == "W5") {
        r.workload = "timeout_ready";
        r.n = 1'000'000;
        start = clock_type::now();
        r.checksum = rt.block_on(timeout_ready(static_cast<std::int64_t>(r.n)));
    } else if (id == "W9") {
        r.workload = "timeout_pending";
        r.n = 1'000'000;
        start = clock_type::now();
        r.checksum = rt.block_on(timeout_pending(static_cast<std::int64_t>(r.n)));
    } else if (id == "W8") {
        r.workload = "block_on_ready";
        r.n = 1'000'000;
        start = clock_type::now();
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(r.n); ++i)
            r.checksum += rt.block_on(ready_value(i));
    } else {
        throw std::invalid_argument("unknown workload '" + std::string(id) + "': expected one of " +
                                    std::string(known_workloads()));
    }
    r.seconds = seconds_since(start);
    return r;
}

}  // namespace rtbench
