#pragma once
// Runs a scenario under one chaos seed after another (the kernel's chaos
// points stall threads at random from that seed: rtkit/detail/chaos.hpp), for
// a time budget, and makes every way a run can fail name its seed: a failed
// check (doctest prints it), a hang (a watchdog aborts and prints it), a
// sanitizer report or an abort (printed on the way out).
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "rtkit/detail/chaos.hpp"

#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define RTKIT_TEST_HAS_SANITIZER_CALLBACK 1
#endif

namespace rtkit::test {

namespace chaos_run {

/// The seed and scenario running now, and how many seeds ran before it in
/// this test case, for the messages below.
inline std::atomic<std::uint64_t> seed{0};
inline std::atomic<std::uint64_t> seeds_before{0};
inline std::atomic<const char*> scenario{""};
/// When the running seed started (steady clock, ns; 0: none running).
inline std::atomic<std::int64_t> started_ns{0};
/// A seed running longer than this has hung.
inline constexpr std::chrono::seconds hang_limit{60};
/// Told when a run starts or ends (the hang watchdog waits on it). Never
/// destroyed: the detached watchdog still waits on it at exit.
struct run_signal {
    std::mutex lock;
    std::condition_variable changed;
};
inline run_signal& run_changed = *new run_signal;
inline void mark_run(std::int64_t started) {
    {
        std::lock_guard guard(run_changed.lock);
        started_ns = started;
    }
    run_changed.changed.notify_all();
}

inline std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Writes "chaos: <what> under RTKIT_CHAOS_SEED=<seed> (<scenario>)" to
/// stderr with nothing but write(2): it runs in signal handlers too.
inline void say_seed(const char* what) noexcept {
    char text[512];
    std::size_t n = 0;
    auto put = [&](const char* s) {
        while (*s && n < sizeof text - 1)
            text[n++] = *s++;
    };
    auto put_number = [&](std::uint64_t v) {
        char digits[24];
        std::size_t d = 0;
        for (; d == 0 || v != 0; v /= 10)
            digits[d++] = static_cast<char>('0' + v % 10);
        while (d > 0 && n < sizeof text - 1)
            text[n++] = digits[--d];
    };
    put("\nchaos: ");
    put(what);
    put(" under RTKIT_CHAOS_SEED=");
    put_number(seed.load());
    put(" (");
    put(scenario.load());
    put(", after ");
    put_number(seeds_before.load());
    put(" runs that passed); replay it with that variable set\n");
    [[maybe_unused]] const ssize_t written = ::write(2, text, n);
}

inline void on_fatal_signal(int signal) {
    if (started_ns.load() != 0) say_seed("the run died");
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

/// Once per process: the handlers, and a watchdog for hung seeds.
inline void install_reporting() {
    static std::once_flag once;
    std::call_once(once, [] {
#ifdef RTKIT_TEST_HAS_SANITIZER_CALLBACK
        __sanitizer_set_death_callback([] {
            if (started_ns.load() != 0) say_seed("a sanitizer stopped the run");
        });
#endif
        ::signal(SIGABRT, on_fatal_signal);
        ::signal(SIGSEGV, on_fatal_signal);
        // Waits for each run's deadline, or for the run to end first.
        std::thread([] {
            std::unique_lock guard(run_changed.lock);
            for (;;) {
                const std::int64_t started = started_ns.load();
                if (started == 0) {
                    run_changed.changed.wait(guard);
                    continue;
                }
                const auto deadline =
                    std::chrono::steady_clock::time_point(std::chrono::nanoseconds(started)) +
                    hang_limit;
                if (run_changed.changed.wait_until(guard, deadline,
                                                   [&] { return started_ns.load() != started; }))
                    continue;
                say_seed("a run hung");
                std::_Exit(3);
            }
        }).detach();
    });
}

}  // namespace chaos_run

/// Runs `scenario` once per seed, for RTKIT_CHAOS_SECONDS seconds (unset or
/// 0: three runs): seeds from a base that changes from run to run, or with
/// RTKIT_CHAOS_SEED=N, seed N again and again (a replay: the stalls repeat,
/// the threads' timing need not, so a replay may take a few runs).
template <class Scenario>
void for_each_chaos_seed(const char* name, Scenario&& scenario) {
    chaos_run::install_reporting();
    chaos_run::scenario = name;
    const char* replay = std::getenv("RTKIT_CHAOS_SEED");
    const std::uint64_t first =
        replay ? std::strtoull(replay, nullptr, 0) : (std::random_device{}() | 1ull) << 16;
    double seconds = 0;
    if (const char* budget = std::getenv("RTKIT_CHAOS_SECONDS")) seconds = std::atof(budget);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::uint64_t tried = 0;
    for (std::uint64_t s = first;
         seconds > 0 ? std::chrono::steady_clock::now() < until : tried < 3;
         s += replay ? 0 : 1, ++tried) {
        chaos_run::seeds_before = tried;
        INFO("chaos seed " << s << " after " << tried
                           << " runs that passed (replay: RTKIT_CHAOS_SEED=" << s << ")");
        chaos_run::seed = s;
        chaos_run::mark_run(chaos_run::now_ns());
        detail::chaos::reseed(s);
        struct calm_after {  // also when a REQUIRE ends the test case
            ~calm_after() {
                detail::chaos::reseed(0);
                chaos_run::mark_run(0);
            }
        } calm;
        scenario();
    }
    MESSAGE(std::string(name) << ": " << tried
                              << std::string(replay ? " runs of seed " : " seeds from ") << first);
}

}  // namespace rtkit::test
