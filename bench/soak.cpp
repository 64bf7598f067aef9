// The soak: rounds of mixed work on one runtime until the time is up. Each
// round starts, concurrently, short tasks that are joined, cancelled or that
// panic; timeouts that fire and that are cancelled; channels whose receiver or
// sender goes away mid-transfer; and loopback TCP connections that echo, or
// whose read or write is cancelled while it waits. A round ends when all of
// them have, so the work in flight stays bounded. Only the public API is used,
// and every counter is atomic: a multi-thread runtime runs tasks on several
// threads.
//
// Awaited values are named before they are tested: GCC 12 miscompiles
// `if (co_await X) STATEMENT` when STATEMENT writes outside the coroutine
// frame (the coroutine never starts: its first resume re-runs the initial
// suspend).
#include "soak.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"
#include "rtkit/sync/channel.hpp"

namespace rtbench {
namespace {

using namespace std::chrono_literals;
using rtkit::join_handle;
using rtkit::outcome;
using rtkit::task;
using rtkit::net::tcp_stream;

/// What the soak did.
struct soak_counts {
    std::atomic<std::uint64_t> rounds{0};
    std::atomic<std::uint64_t> spawned{0}, completed{0}, cancelled{0}, panicked{0};
    std::atomic<std::uint64_t> timeouts_fired{0}, timeouts_cancelled{0};
    std::atomic<std::uint64_t> closed_by_receiver{0}, closed_by_sender{0}, values_sent{0};
    std::atomic<std::uint64_t> connections{0}, echoed_bytes{0};
    std::atomic<std::uint64_t> reads_cancelled{0}, writes_cancelled{0};
    std::atomic<std::uint64_t> joined{0};  ///< tasks awaited to their end: the soak's progress
};

template <class T>
join_handle<T> spawn_counted(soak_counts& counts, task<T> work) {
    ++counts.spawned;
    return rtkit::spawn(std::move(work));
}

/// Awaits a task spawned with spawn_counted and counts how it ended (an
/// error it returned counts as completed: it ran to its end).
template <class T>
task<outcome<T>> join_counted(soak_counts& counts, join_handle<T> handle) {
    outcome<T> result = co_await std::move(handle);
    ++counts.joined;
    if (result.is_cancelled())
        ++counts.cancelled;
    else if (result.is_panicked())
        ++counts.panicked;
    else
        ++counts.completed;
    co_return result;
}

// ---- tasks ----

task<int> short_work(int yields) {
    for (int i = 0; i < yields; ++i)
        co_await rtkit::yield_now();
    co_return yields;
}

task<void> sleep_long() {
    co_await rtkit::sleep(10s);
}

task<void> fail_on_purpose() {
    co_await rtkit::yield_now();
    throw std::runtime_error("a soak task that panics on purpose");
}

task<void> spawn_and_join(soak_counts& counts) {
    std::vector<join_handle<int>> workers;
    for (int i = 0; i < 8; ++i)
        workers.push_back(spawn_counted(counts, short_work(i % 3)));
    for (auto& w : workers)
        co_await join_counted(counts, std::move(w));
}

task<void> spawn_and_cancel(soak_counts& counts) {
    auto sleeper = spawn_counted(counts, sleep_long());
    co_await rtkit::yield_now();
    sleeper.cancel();
    co_await join_counted(counts, std::move(sleeper));
}

task<void> spawn_and_panic(soak_counts& counts) {
    co_await join_counted(counts, spawn_counted(counts, fail_on_purpose()));
}

task<void> timeouts(soak_counts& counts) {
    const bool slept_in_time = co_await rtkit::timeout(1ms, sleep_long());
    if (!slept_in_time) ++counts.timeouts_fired;
    const std::optional<int> worked = co_await rtkit::timeout(10s, short_work(2));
    if (worked) ++counts.timeouts_cancelled;
}

/// Sends until the receiver goes away, or `count` values then goes away itself.
task<void> produce(rtkit::sync::channel_sender<std::uint64_t> tx, int count, soak_counts& counts) {
    for (int i = 0; count < 0 || i < count; ++i) {
        const bool sent = co_await tx.send(static_cast<std::uint64_t>(i));
        if (!sent) co_return;  // the receiver closed
        ++counts.values_sent;
    }
    { auto gone = std::move(tx); }  // ends the channel under a waiting receiver
}

task<void> channel_closed_by_receiver(soak_counts& counts) {
    auto [tx, rx] = rtkit::sync::make_channel<std::uint64_t>(4);
    auto producer = spawn_counted(counts, produce(std::move(tx), -1, counts));
    {
        auto receiver = std::move(rx);
        for (int i = 0; i < 10; ++i)
            co_await receiver.recv();
    }  // the producer's next send fails
    co_await join_counted(counts, std::move(producer));
    ++counts.closed_by_receiver;
}

task<void> channel_closed_by_sender(soak_counts& counts) {
    auto [tx, rx] = rtkit::sync::make_channel<std::uint64_t>(4);
    auto producer = spawn_counted(counts, produce(std::move(tx), 10, counts));
    while (const std::optional<std::uint64_t> value = co_await rx.recv()) {
    }
    co_await join_counted(counts, std::move(producer));
    ++counts.closed_by_sender;
}

// ---- TCP: a server on the same runtime, and its clients ----

/// The first byte a client sends says how the server treats it: 'e' echoes;
/// 's' stalls a while before reading (so the client's writes back up), then
/// reads and drops everything.
task<void> serve_connection(tcp_stream accepted) {
    tcp_stream conn = std::move(accepted);
    try {
        char mode = 0;
        const std::size_t got = co_await conn.read(&mode, 1);
        if (got == 0) co_return;
        if (mode == 's') co_await rtkit::sleep(20ms);
        char buffer[16384];
        while (const std::size_t n = co_await conn.read(buffer, sizeof buffer))
            if (mode == 'e') co_await conn.write_all(buffer, n);
    } catch (const std::system_error&) {
        // The client reset the connection: this one is done.
    }
}

/// The server's connection tasks: the acceptor adds, the root joins.
struct connection_tasks {
    std::mutex mutex;
    std::vector<join_handle<void>> handles;

    void add(join_handle<void> handle) {
        std::lock_guard lock(mutex);
        handles.push_back(std::move(handle));
    }
    /// Takes the finished ones, or all when `all`.
    std::vector<join_handle<void>> take(bool all) {
        std::lock_guard lock(mutex);
        auto finished = std::stable_partition(handles.begin(), handles.end(), [&](const auto& h) {
            return !all && !h.is_finished();
        });
        std::vector<join_handle<void>> taken(std::make_move_iterator(finished),
                                             std::make_move_iterator(handles.end()));
        handles.erase(finished, handles.end());
        return taken;
    }
};

/// Joins the connection tasks that have finished, or all of them.
task<void> join_connections(connection_tasks& tasks, soak_counts& counts, bool all) {
    for (auto& handle : tasks.take(all))
        co_await join_counted(counts, std::move(handle));
}

task<void> accept_loop(rtkit::net::tcp_listener& listener, connection_tasks& tasks,
                       soak_counts& counts) {
    while (true)
        tasks.add(spawn_counted(counts, serve_connection(co_await listener.accept())));
}

task<tcp_stream> connect_to(std::uint16_t port, char mode, soak_counts& counts) {
    tcp_stream conn = co_await tcp_stream::connect(rtkit::net::socket_address::loopback(port));
    ++counts.connections;
    co_await conn.write_all(&mode, 1);
    co_return conn;
}

task<void> echo_exchange(std::uint16_t port, soak_counts& counts) {
    tcp_stream conn = co_await connect_to(port, 'e', counts);
    std::string request(1000, 'x');
    std::string reply(request.size(), '\0');
    co_await conn.write_all(request);
    co_await conn.read_exact(reply.data(), reply.size());
    if (reply != request) throw std::logic_error("soak: the echo differs from the request");
    counts.echoed_bytes += reply.size();
}

/// Waits for bytes an echo server never sends (the client sent none).
task<void> read_forever(tcp_stream& conn) {
    char byte = 0;
    co_await conn.read(&byte, 1);
    throw std::logic_error("soak: a read that should wait for ever returned");
}

task<void> write_forever(tcp_stream& conn) {
    const std::vector<char> chunk(65536, 'w');
    while (true)
        co_await conn.write_all(chunk.data(), chunk.size());
}

task<void> read_cancelled(std::uint16_t port, soak_counts& counts) {
    tcp_stream conn = co_await connect_to(port, 'e', counts);
    auto reader = spawn_counted(counts, read_forever(conn));
    co_await rtkit::sleep(1ms);
    reader.cancel();
    const outcome<void> read = co_await join_counted(counts, std::move(reader));
    if (read.is_cancelled()) ++counts.reads_cancelled;
}

task<void> write_cancelled(std::uint16_t port, soak_counts& counts) {
    tcp_stream conn = co_await connect_to(port, 's', counts);
    auto writer = spawn_counted(counts, write_forever(conn));
    co_await rtkit::sleep(2ms);  // the stalled server lets the socket buffers fill
    writer.cancel();
    const outcome<void> written = co_await join_counted(counts, std::move(writer));
    if (written.is_cancelled()) ++counts.writes_cancelled;
}

/// One round: every kind of work at once, joined before the next round.
task<void> soak_round(std::uint16_t port, soak_counts& counts) {
    std::vector<join_handle<void>> work;
    auto start = [&](task<void> t) { work.push_back(spawn_counted(counts, std::move(t))); };
    start(spawn_and_join(counts));
    start(spawn_and_cancel(counts));
    start(spawn_and_panic(counts));
    start(timeouts(counts));
    start(channel_closed_by_receiver(counts));
    start(channel_closed_by_sender(counts));
    start(echo_exchange(port, counts));
    start(echo_exchange(port, counts));
    start(read_cancelled(port, counts));
    start(write_cancelled(port, counts));
    for (auto& w : work) {
        outcome<void> result = co_await join_counted(counts, std::move(w));
        if (!result.is_ok()) result.value();  // a round's work must not fail: rethrow why
    }
    ++counts.rounds;
}

// ---- what the process holds ----

/// A counter's value, as printf's %llu takes it.
unsigned long long n(const std::atomic<std::uint64_t>& counter) {
    return counter.load();
}

/// Resident memory in KiB (/proc/self/statm).
std::uint64_t resident_kib() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages_total = 0, pages_resident = 0;
    statm >> pages_total >> pages_resident;
    return pages_resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

/// What each open descriptor refers to ("socket:[123]", "anon_inode:[eventpoll]", a path), counted.
std::map<std::string, int> open_descriptors() {
    std::map<std::string, int> targets;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        ++targets[std::filesystem::read_symlink(entry.path(), ec).string()];
    }
    return targets;
}

/// Descriptors in `after` that were not in `before`.
int new_descriptors(const std::map<std::string, int>& before,
                    const std::map<std::string, int>& after) {
    int added = 0;
    for (const auto& [target, count] : after) {
        const auto it = before.find(target);
        added += std::max(0, count - (it == before.end() ? 0 : it->second));
    }
    return added;
}

int total(const std::map<std::string, int>& descriptors) {
    int n = 0;
    for (const auto& entry : descriptors)
        n += entry.second;
    return n;
}

struct soak_result {
    std::map<std::string, int> descriptors_before, descriptors_after;
    std::uint64_t warm_kib = 0, peak_kib = 0;
};

/// One line of the memory trace: resident memory, what malloc has handed out
/// and holds, and what task frames hold (they come from chunks of their own).
void print_trace(std::chrono::steady_clock::duration elapsed, const soak_counts& counts) {
    const struct mallinfo2 heap = ::mallinfo2();
    std::printf(
        "soak: trace t=%llds rounds=%llu rss_kib=%llu malloc_in_use_kib=%zu malloc_held_kib=%zu "
        "frame_chunks_kib=%zu\n",
        static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count()),
        n(counts.rounds), static_cast<unsigned long long>(resident_kib()),
        (heap.uordblks + heap.hblkhd) / 1024, (heap.arena + heap.hblkhd) / 1024,
        rtkit::detail::frame_memory_mapped() / 1024);
    std::fflush(stdout);
}

task<void> soak(std::chrono::seconds length, std::chrono::seconds trace_every, soak_counts& counts,
                soak_result& result) {
    using clock = std::chrono::steady_clock;
    const auto started = clock::now();
    const auto warm_until = started + std::max<clock::duration>(1s, length / 10);
    const auto stop_at = started + length;
    auto next_trace = started + trace_every;

    auto listener = rtkit::net::tcp_listener::bind(rtkit::net::socket_address::loopback(0));
    const std::uint16_t port = listener.local_address().port();
    connection_tasks server_tasks;
    auto acceptor = spawn_counted(counts, accept_loop(listener, server_tasks, counts));

    // A first round opens what the runtime keeps for good (its wake
    // descriptors, say); what is open after it must be open at the end.
    co_await soak_round(port, counts);
    co_await join_connections(server_tasks, counts, false);
    result.descriptors_before = open_descriptors();
    while (clock::now() < stop_at) {
        co_await soak_round(port, counts);
        co_await join_connections(server_tasks, counts, false);
        result.peak_kib = std::max(result.peak_kib, resident_kib());
        if (result.warm_kib == 0 && clock::now() >= warm_until) result.warm_kib = resident_kib();
        if (trace_every.count() > 0 && clock::now() >= next_trace) {
            print_trace(clock::now() - started, counts);
            next_trace += trace_every;
        }
    }
    acceptor.cancel();
    co_await join_counted(counts, std::move(acceptor));
    co_await join_connections(server_tasks, counts, true);
    result.descriptors_after = open_descriptors();
}

/// Prints what the soak did so far.
void print_counts(const rtkit::runtime& rt, std::chrono::seconds length,
                  const soak_counts& counts) {
    const auto& d = rt.description();
    std::printf("soak: flavor=%s reactor=%s timer=%s lanes=%s seconds=%lld rounds=%llu\n",
                d.flavor.c_str(), d.reactor.c_str(), d.timer.c_str(), d.lanes.c_str(),
                static_cast<long long>(length.count()),
                static_cast<unsigned long long>(counts.rounds.load()));
    std::printf("soak: tasks spawned=%llu completed=%llu cancelled=%llu panicked=%llu\n",
                n(counts.spawned), n(counts.completed), n(counts.cancelled), n(counts.panicked));
    std::printf("soak: timeouts fired=%llu cancelled=%llu\n", n(counts.timeouts_fired),
                n(counts.timeouts_cancelled));
    std::printf("soak: channels closed_by_receiver=%llu closed_by_sender=%llu values=%llu\n",
                n(counts.closed_by_receiver), n(counts.closed_by_sender), n(counts.values_sent));
    std::printf(
        "soak: connections=%llu echoed_bytes=%llu reads_cancelled=%llu writes_cancelled=%llu\n",
        n(counts.connections), n(counts.echoed_bytes), n(counts.reads_cancelled),
        n(counts.writes_cancelled));
}

/// Ends the process when no task has finished for `limit`: the runtime
/// stalled (a lost wake-up, say), and the soak would otherwise wait for ever.
/// What was done so far is printed first.
class stall_watch {
  public:
    stall_watch(const rtkit::runtime& rt, std::chrono::seconds length, const soak_counts& counts,
                std::chrono::seconds limit)
        : thread_([&rt, length, &counts, limit, this](std::stop_token stop) {
              std::uint64_t seen = counts.joined.load();
              std::unique_lock lock(mutex_);
              while (true) {
                  // Only a stop request ends the wait early.
                  wake_.wait_for(lock, stop, limit, [] { return false; });
                  if (stop.stop_requested()) return;
                  const std::uint64_t now = counts.joined.load();
                  if (now != seen) {
                      seen = now;
                      continue;
                  }
                  print_counts(rt, length, counts);
                  std::printf("soak: FAILED: no task finished for %lld s: the runtime stalled\n",
                              static_cast<long long>(limit.count()));
                  std::fflush(stdout);
                  std::_Exit(1);
              }
          }) {}

  private:
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace

int run_soak(rtkit::runtime& rt, std::chrono::seconds length, std::chrono::seconds trace_every) {
    soak_counts counts;
    soak_result result;
    {
        stall_watch watch(rt, length, counts, 60s);
        rt.block_on(soak(length, trace_every, counts, result));
    }
    const std::uint64_t final_kib = resident_kib();
    // Workers of a multi-thread runtime may still be retiring the last tasks
    // for a moment after block_on returns: wait for that, within a bound.
    const auto quiescent_by = std::chrono::steady_clock::now() + 2s;
    while (!rt.is_quiescent() && std::chrono::steady_clock::now() < quiescent_by)
        std::this_thread::yield();
    const bool quiescent = rt.is_quiescent();

    print_counts(rt, length, counts);
    const std::uint64_t warm_kib = result.warm_kib ? result.warm_kib : result.peak_kib;
    std::printf("soak: rss_kib after_warm_up=%llu peak=%llu final=%llu\n",
                static_cast<unsigned long long>(warm_kib),
                static_cast<unsigned long long>(result.peak_kib),
                static_cast<unsigned long long>(final_kib));

    bool passed = true;
    auto check = [&](bool holds, const std::string& what) {
        std::printf("soak: check %s: %s\n", what.c_str(), holds ? "ok" : "FAILED");
        passed = passed && holds;
    };
    check(n(counts.spawned) == n(counts.completed) + n(counts.cancelled) + n(counts.panicked),
          "every task accounted for (spawned = completed + cancelled + panicked)");
    const int leaked = new_descriptors(result.descriptors_before, result.descriptors_after);
    check(leaked == 0, "no descriptor leaked (" + std::to_string(total(result.descriptors_before)) +
                           " open before, " + std::to_string(total(result.descriptors_after)) +
                           " after, " + std::to_string(leaked) + " new)");
    check(quiescent, "the runtime is quiescent");
    check(final_kib * 10 <= warm_kib * 11,
          "resident memory back within 10% of its value after warm-up");
    std::printf("soak: %s\n", passed ? "passed" : "FAILED");
    return passed ? 0 : 1;
}

}  // namespace rtbench
