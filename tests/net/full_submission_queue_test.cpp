// The uring reactor when its submission queue is full. On an SQPOLL ring of
// 8 entries a kernel thread takes the queue's entries when it runs, not when
// they are submitted, so the queue can still be full just after a flush:
// entries asked for then (an operation's, or the re-armed eventfd READ behind
// wake()) must wait for room instead of failing, and a wake() from another
// thread must always end a blocking poll(). Where the READ cannot be re-armed
// at all (injected), poll() must still end for a wake() and never block forever.
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "net_support.hpp"
#include "rtkit/completion_reactor.hpp"
#include "rtkit/plugin_loader.hpp"
#include "rtkit/sync/notify.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

const option_table tiny_sqpoll_ring = {{"sqpoll", true}, {"entries", std::int64_t{8}}};

/// Echo conversations held at once by the runtime case: three times the ring.
constexpr int conversations = 24;

/// Nothing is registered for readiness here: there is nothing to deliver.
struct no_readiness final : readiness_sink {
    void deliver(io_token, unsigned) noexcept override {}
};

/// Pipes whose 1-byte reads complete as soon as the kernel takes them.
struct filled_pipes {
    static constexpr int count = 8;  // as many as the submission queue holds
    std::array<std::array<int, 2>, count> ends{};
    std::array<char, count> bytes{};
    filled_pipes() {
        for (auto& p : ends)
            REQUIRE(pipe(p.data()) == 0);
    }
    ~filled_pipes() {
        for (auto& p : ends) {
            close(p[0]);
            close(p[1]);
        }
    }
    filled_pipes(const filled_pipes&) = delete;
    filled_pipes& operator=(const filled_pipes&) = delete;

    /// Writes a byte into each of the first `n` pipes and submits a 1-byte
    /// read of it, completing into `done[i]`.
    void submit_reads(completion_reactor_v1& ops, io_completion* done, int n) {
        for (int i = 0; i < n; ++i) {
            REQUIRE(write(ends[i][1], "x", 1) == 1);
            std::string error;
            try {
                ops.submit({io_opcode::read, ends[i][0], &bytes[i], 1}, done[i]);
            } catch (const std::exception& e) {
                error = e.what();
            }
            REQUIRE_MESSAGE(error.empty(), "submit() of read ", i + 1, " of ", n, ": ", error);
        }
    }
};

bool any_pending(const io_completion* done, int n) {
    for (int i = 0; i < n; ++i)
        if (done[i].pending) return true;
    return false;
}

/// Wakes `r` from another thread, as a runtime's other threads do.
void wake_from_another_thread(reactor& r) {
    std::thread([&r] { r.wake(); }).join();
}

/// Whether `r.poll(timeout)` returns within 2 s. Bounded even for a poll that
/// would never return: a watchdog thread then ends it by completing a read
/// submitted on a pipe.
bool poll_returns_promptly(reactor& r, completion_reactor_v1& ops, rtkit::duration timeout) {
    std::array<int, 2> watchdog_pipe{};
    REQUIRE(pipe(watchdog_pipe.data()) == 0);
    char byte = 0;
    io_completion watchdog_read;
    ops.submit({io_opcode::read, watchdog_pipe[0], &byte, 1}, watchdog_read);
    std::mutex lock;
    std::condition_variable returned_changed;
    bool returned = false;
    std::thread watchdog([&] {
        std::unique_lock held(lock);
        if (!returned_changed.wait_for(held, 2s, [&] { return returned; }))
            CHECK(write(watchdog_pipe[1], "w", 1) == 1);
    });
    no_readiness sink;
    r.poll(timeout, sink);
    {
        std::lock_guard held(lock);
        returned = true;
    }
    returned_changed.notify_one();
    watchdog.join();
    const bool prompt = watchdog_read.pending;  // the watchdog did not have to end it
    ops.cancel(watchdog_read);
    close(watchdog_pipe[0]);
    close(watchdog_pipe[1]);
    return prompt;
}

/// Echoes what arrives on `conn` until the peer closes it.
task<void> echo(net::unix_stream conn) {
    char buffer[512];
    while (const std::size_t n = co_await conn.read(buffer, sizeof buffer))
        co_await conn.write_all(buffer, n);
}

/// Sends `rounds` messages through an echo and checks each reply.
task<bool> echoed_rounds(int rounds) {
    auto [near, far] = net::unix_stream::pair();
    auto echoing = spawn(echo(std::move(far)));
    const std::string message(300, 'm');
    std::string reply(message.size(), '\0');
    bool all_equal = true;
    for (int round = 0; round < rounds; ++round) {
        co_await near.write_all(message);
        co_await near.read_exact(reply.data(), reply.size());
        all_equal = all_equal && reply == message;
    }
    near.close();  // end of stream: the echo returns
    co_await std::move(echoing);
    co_return all_equal;
}

/// Many echo conversations at once (more submissions per dispatch turn than
/// the ring holds) while `pings` are answered one by one: each is a
/// notification from another thread, so each needs a wake() of a worker.
/// Returns the conversations that went right; `answered` counts the pings.
task<int> talk_while_answering(sync::notify& pings, int ping_count, std::atomic<int>& answered) {
    constexpr int rounds = 40;
    std::vector<join_handle<bool>> talking;
    for (int c = 0; c < conversations; ++c)
        talking.push_back(spawn(echoed_rounds(rounds)));
    for (int p = 0; p < ping_count; ++p) {
        co_await pings.notified();
        answered.fetch_add(1);
        answered.notify_all();
    }
    int right = 0;
    for (auto& t : talking) {
        outcome<bool> done = co_await std::move(t);
        if (done.is_ok() && done.value()) ++right;
    }
    co_return right;
}

}  // namespace

TEST_CASE("uring sqpoll: wake ends a blocking poll after its READ completed into a full queue") {
    // The eventfd READ behind wake() completes and is re-armed while the
    // kernel thread has not yet taken the 8 reads just flushed. Whether it
    // has depends on that thread's timing, so this is tried many times.
    auto r = plugin_loader().create_by_name<reactor>("uring", tiny_sqpoll_ring);
    auto* ops = static_cast<completion_reactor_v1*>(r->query_interface(completion_reactor_v1_name));
    REQUIRE(ops != nullptr);
    no_readiness sink;
    filled_pipes pipes;
    for (int attempt = 0; attempt < 1000; ++attempt) {
        INFO("attempt ", attempt);
        // One read, completed: the kernel thread has taken everything before
        // it, so the wake READ is in the kernel and the queue is empty.
        io_completion first;
        pipes.submit_reads(*ops, &first, 1);
        while (first.pending)
            r->poll(100ms, sink);
        // The READ completes (the kernel thread posts it in the background)
        // while 8 reads fill the queue; the next poll() flushes them and
        // reaps the READ's completion.
        wake_from_another_thread(*r);
        io_completion reads[filled_pipes::count];
        pipes.submit_reads(*ops, reads, filled_pipes::count);
        const auto reads_deadline = std::chrono::steady_clock::now() + 5s;
        while (any_pending(reads, filled_pipes::count) &&
               std::chrono::steady_clock::now() < reads_deadline)
            r->poll(100ms, sink);
        REQUIRE_FALSE(any_pending(reads, filled_pipes::count));
        // Nothing else is in flight: only the wake can end this poll early.
        wake_from_another_thread(*r);
        const auto start = std::chrono::steady_clock::now();
        r->poll(5s, sink);
        REQUIRE_MESSAGE(std::chrono::steady_clock::now() - start < 4s,
                        "a wake() from another thread did not end a blocking poll()");
    }
}

TEST_CASE("uring sqpoll: other threads wake a worker while its tiny ring is full") {
    for (const int workers : {0, 2}) {
        INFO((workers == 0 ? std::string("current_thread") : "multi_thread, 2 workers"));
        runtime_config config = net_test::config_for("uring");
        if (workers > 0) {
            config.flavor = "multi_thread";
            config.workers = workers;
        }
        config.reactor.options["uring"] = tiny_sqpoll_ring;
        runtime rt(config);
        sync::notify pings;
        std::atomic<int> answered{0};
        constexpr int ping_count = 200;
        // Another thread: one ping at a time, the next once it was answered
        // (or once the runtime gave up: answered is then set to ping_count).
        std::thread pinger([&] {
            for (int p = 0; p < ping_count; ++p) {
                pings.notify_one();
                for (int seen = answered.load(); seen <= p; seen = answered.load())
                    answered.wait(seen);
            }
        });
        // A stall fails the case (after the bound) instead of hanging it.
        const std::optional<int> right = rt.block_on([&]() -> task<std::optional<int>> {
            co_return co_await rtkit::timeout(20s,
                                              talk_while_answering(pings, ping_count, answered));
        }());
        answered.store(ping_count);
        answered.notify_all();
        pinger.join();
        REQUIRE(right.has_value());
        CHECK(*right == conversations);
    }
}

TEST_CASE("uring: wakes end polls while the wake READ cannot be re-armed") {
    for (const bool sqpoll : {false, true}) {
        INFO("sqpoll = ", sqpoll);
        auto r = plugin_loader().create_by_name<reactor>(
            "uring", {{"sqpoll", sqpoll}, {"test_fail_wake_rearms", std::int64_t{3}}});
        auto& ops =
            *static_cast<completion_reactor_v1*>(r->query_interface(completion_reactor_v1_name));
        // The READ completes.
        wake_from_another_thread(*r);
        CHECK(poll_returns_promptly(*r, ops, 5s));
        // No READ in the kernel and no wake: an unbounded poll() fails to
        // re-arm it (1 of 3) and waits only briefly.
        CHECK(poll_returns_promptly(*r, ops, rtkit::duration{-1}));
        // A wake() meanwhile ends the next poll() at once (re-arm 2 of 3 fails).
        wake_from_another_thread(*r);
        CHECK(poll_returns_promptly(*r, ops, rtkit::duration{-1}));
        // Re-arm 3 of 3 fails: again only a brief wait.
        CHECK(poll_returns_promptly(*r, ops, rtkit::duration{-1}));
        // The re-arm succeeds: a wake() ends a blocking poll().
        wake_from_another_thread(*r);
        CHECK(poll_returns_promptly(*r, ops, rtkit::duration{-1}));
    }
}
