#pragma once
// rtkit::runtime_config: everything needed to build a runtime, independent of
// where it came from (TOML, command line, or code).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace rtkit {

/// A plugin option value as configured: bool, integer or string.
using option_value = std::variant<bool, std::int64_t, std::string>;

/// A plugin's options by key.
using option_table = std::map<std::string, option_value, std::less<>>;

/// Which plugin of one kind to use, and its options.
struct plugin_selection {
    /// Mechanism names in order of preference; the first that starts wins.
    std::vector<std::string> preference;
    /// When true, only the first preference may be used: failing to start it is
    /// an error instead of a fallback.
    bool strict = false;
    /// Options for each plugin by its name (the TOML table [reactor.epoll] etc.).
    std::map<std::string, option_table, std::less<>> options;
};

/// The pool of threads that runs blocking calls (rtkit/blocking.hpp) and name
/// resolution. It starts threads only as calls need them.
struct blocking_pool_config {
    /// The most threads running calls at once; more calls wait in line.
    int max_threads = 512;
    /// How long a thread with no call to run waits for one before it ends.
    std::chrono::milliseconds keep_alive{10000};
};

/// Trace events: what the workers do, written as Chrome trace-event JSON that
/// Perfetto and chrome://tracing open (kernel/README.md, "Trace events").
/// Off, a trace point costs one predictable branch.
struct trace_config {
    bool enabled = false;
    /// Where the JSON goes (truncated when the runtime starts).
    std::filesystem::path file = "rtkit-trace.json";
    /// Records each worker keeps before it writes them out (each is 64 bytes).
    std::size_t buffer_events = 4096;
};

/// The runtime's configuration. Defaults match config/default.toml.
struct runtime_config {
    /// "current_thread" (one worker, block_on borrows it) or "multi_thread"
    /// (`workers` threads that steal from each other; kernel/README.md).
    std::string flavor = "current_thread";
    /// Worker threads. current_thread runs exactly one, and the runtime refuses
    /// any other number; multi_thread runs this many (0: one per CPU).
    int workers = 1;
    /// The runtime's one clock: "monotonic" (the system's) or "virtual" (starts
    /// at zero and jumps to the next timer's deadline whenever nothing can run
    /// and no I/O is awaited, so that an hour of sleeps takes no time and the
    /// order of events stays the same; current_thread only, and the timer
    /// plugin must bind to the runtime's clock, rtkit/clock.hpp).
    std::string clock = "monotonic";
    /// The runtime's label (the configuration's, shown by rtctl config show).
    std::string name = "rtkit";
    /// Ask for transparent huge pages (madvise) for the task stores, and for
    /// the frame chunks mapped while a thread runs this runtime's tasks or
    /// block_on roots. Spawning very many tasks is faster when the system has
    /// huge pages free and backed; each new 2 MiB then costs one fault of that
    /// size on the worker (milliseconds on a VM whose host must back it
    /// again), and a small runtime holds 2 MiB per thread. Frame chunks serve
    /// every runtime of the process and keep the advice they were mapped with.
    /// Off, memory follows the system's huge page policy.
    bool huge_pages = false;
    /// How long a worker with nothing to run keeps polling the reactor
    /// without blocking before it sleeps in it (0: it sleeps at once). Only
    /// while I/O is registered, never past the next timer, and not on the
    /// virtual clock. A server whose clients send again within that time
    /// finds the worker awake: it is not woken, and the clients' sends do not
    /// pay for waking it, which at high request rates buys throughput with
    /// the CPU spent polling (bench/README.md, "mini-redis against
    /// redis-server"). The current-thread flavor's worker only: the
    /// multi-thread flavor's workers sleep at once. The starting value:
    /// runtime::set_poll_before_park changes it while the runtime runs.
    std::chrono::microseconds poll_before_park{0};
    /// Extra directories searched for plugin files, after the built-in directory.
    std::vector<std::filesystem::path> plugin_search_path;
    /// Load plugin files that are writable by group or others, or that sit in
    /// a directory that is (plugin_load_policy::allow_insecure_permissions).
    bool allow_insecure_plugins = false;
    blocking_pool_config blocking;
    trace_config trace;
    plugin_selection reactor{{"epoll"}, false, {}};
    plugin_selection timer{{"wheel"}, false, {}};
    plugin_selection lanes{{"three_lane"}, false, {}};
};

/// A replayable runtime (what `rtctl run --lab` runs on): one worker, the
/// `lab` lane policy picking the next task with a generator seeded with
/// `seed`, and the virtual clock. The same seed runs the same program's tasks
/// in the same order with the same times, on every run and machine, as long
/// as nothing outside (a socket, another thread) takes part; another seed
/// tries another order. The timer and reactor stay the defaults. Seeds run
/// from 0 to INT64_MAX (the plugin option is a TOML integer).
inline runtime_config lab_config(std::uint64_t seed) {
    runtime_config config;
    config.clock = "virtual";
    config.lanes =
        plugin_selection{{"lab"}, true, {{"lab", {{"seed", static_cast<std::int64_t>(seed)}}}}};
    return config;
}

}  // namespace rtkit
