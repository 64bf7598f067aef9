// runtime::activity(): what each worker is doing, read from another thread
// while a plugin is stuck, while the runtime's destructor waits for a stuck
// worker, and after the runtime is gone. The stuck plugin is the faulty
// epoll reactor with its blocking polls held (plugins/plugin_control.hpp):
// held, a poll is deaf to its timeout and to wake(), as a broken plugin is.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "fault_plugins.hpp"
#include "rtkit/net/tcp_listener.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

using state = worker_activity::state;
using entries = std::vector<worker_activity>;

/// Reads the board until `holds` says yes of what it read, for 10 s at most;
/// returns the last reading. A reading, not a wait on a clock: each look
/// yields the CPU to the workers it waits for.
template <class Holds>
entries read_board_until(const runtime_activity& board, Holds holds) {
    const auto limit = std::chrono::steady_clock::now() + 10s;
    entries seen = board.snapshot();
    while (!holds(seen) && std::chrono::steady_clock::now() < limit) {
        std::this_thread::yield();
        seen = board.snapshot();
    }
    return seen;
}

/// The entries that say `what` (and, if given, inside `call`).
std::size_t count(const entries& seen, state what, const std::string& call = "") {
    return static_cast<std::size_t>(std::count_if(seen.begin(), seen.end(), [&](const auto& e) {
        return e.what == what && (call.empty() || e.call == call);
    }));
}

const worker_activity& find(const entries& seen, state what) {
    const auto found =
        std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.what == what; });
    REQUIRE(found != seen.end());
    return *found;
}

/// Keeps its worker running, registering sockets until told to stop. Each
/// registration wakes a worker waiting in the reactor, or unparks one, and
/// the faulty reactor holds the next blocking poll: from then on, the next
/// registration waits for the reactor that the held worker is inside.
task<void> register_until_stopped(test::plugin_control& reactor, const std::atomic<bool>& stop) {
    reactor.hold_blocking_polls();
    while (!stop.load()) {
        net::tcp_listener::bind(net::socket_address::loopback(0));
        co_await yield_now();
    }
}

}  // namespace

TEST_CASE(
    "runtime_activity: names the worker stuck in a reactor plugin's poll and the worker waiting "
    "for that reactor - multi_thread") {
    test::run_or_abort_on_deadlock("a worker waiting for a stuck reactor", [] {
        runtime_config c = test::multi_thread(2);
        test::use_faulty(c, "reactor");
        runtime rt(c);
        test::plugin_control& reactor = test::control_of("reactor");
        const std::shared_ptr<const runtime_activity> board = rt.activity();
        REQUIRE(board->snapshot().size() == 2);

        std::atomic<bool> stop{false};
        std::thread caller([&] {
            rt.block_on(
                [](test::plugin_control& reactor, const std::atomic<bool>& stop) -> task<void> {
                    (co_await spawn(register_until_stopped(reactor, stop))).value();
                }(reactor, stop));
        });
        const auto limit = std::chrono::steady_clock::now() + 10s;
        while (reactor.polls_held() == 0 && std::chrono::steady_clock::now() < limit)
            std::this_thread::yield();
        const int held = reactor.polls_held();
        const entries seen = read_board_until(*board, [](const entries& seen) {
            return count(seen, state::in_reactor, "poll") == 1 &&
                   count(seen, state::waiting_for_reactor) == 1;
        });
        const std::string text = board->describe();
        stop.store(true);
        reactor.release_polls();
        caller.join();

        REQUIRE(held == 1);
        INFO(text);
        REQUIRE(count(seen, state::in_reactor, "poll") == 1);
        REQUIRE(count(seen, state::waiting_for_reactor) == 1);
        const worker_activity& stuck = find(seen, state::in_reactor);
        const worker_activity& waiting = find(seen, state::waiting_for_reactor);
        CHECK(stuck.worker != waiting.worker);
        CHECK(stuck.plugin == "faulty_epoll");
        CHECK(stuck.for_how_long.has_value());  // a blocking poll is timed
        CHECK(waiting.plugin == "faulty_epoll");
        CHECK(waiting.call == "");
        CHECK(waiting.for_how_long.has_value());
        CHECK(text.find("worker " + std::to_string(stuck.worker) +
                        " has been inside the reactor plugin \"faulty_epoll\" (poll) for ") !=
              std::string::npos);
        CHECK(text.find("worker " + std::to_string(waiting.worker) + " has been waiting for ") !=
              std::string::npos);
        CHECK(text.find(" for the reactor \"faulty_epoll\", which another thread is inside\n") !=
              std::string::npos);
    });
}

TEST_CASE(
    "runtime_activity: stays readable while the runtime's destructor waits for a worker stuck in "
    "the reactor - and after") {
    test::run_or_abort_on_deadlock("a destructor waiting for a stuck reactor", [] {
        // Held before the workers start: with nothing to run, the first to
        // wait in the reactor stays there, and the other parks.
        test::early_faulty_plugin faulty("reactor");
        faulty.control().hold_blocking_polls();
        runtime_config c = test::multi_thread(2);
        test::use_faulty(c, "reactor");
        auto rt = std::make_unique<runtime>(c);
        const std::shared_ptr<const runtime_activity> board = rt->activity();
        const entries idle = read_board_until(*board, [](const entries& seen) {
            return count(seen, state::in_reactor, "poll") == 1 && count(seen, state::parked) == 1;
        });
        {
            INFO(board->describe());
            CHECK(count(idle, state::in_reactor, "poll") == 1);
            CHECK(count(idle, state::parked) == 1);
            if (count(idle, state::parked) == 1)
                CHECK(find(idle, state::parked).for_how_long.has_value());
        }

        // The parked worker's thread ends; the destructor waits for the other.
        std::thread destroying([&] { rt.reset(); });
        const entries stuck = read_board_until(*board, [](const entries& seen) {
            return count(seen, state::in_reactor, "poll") == 1 && count(seen, state::stopped) == 1;
        });
        const std::string text = board->describe();
        faulty.control().release_polls();
        destroying.join();
        INFO(text);
        CHECK(count(stuck, state::in_reactor, "poll") == 1);
        CHECK(count(stuck, state::stopped) == 1);
        CHECK(text.find(" has stopped (the runtime shut down)\n") != std::string::npos);

        // Gone: the board says so, for as long as anyone holds it.
        CHECK(count(board->snapshot(), state::stopped) == 2);
        CHECK(board->describe() ==
              "worker 0 has stopped (the runtime shut down)\n"
              "worker 1 has stopped (the runtime shut down)\n");
    });
}

TEST_CASE(
    "runtime_activity: a current_thread worker is driven by block_on - and waits in the reactor "
    "when its root waits") {
    runtime rt;
    const std::shared_ptr<const runtime_activity> board = rt.activity();
    REQUIRE(board->snapshot().size() == 1);
    CHECK(board->snapshot()[0].what == state::not_driven);
    CHECK(board->describe() == "worker 0 is not driven by any thread (no block_on runs)\n");

    // The root waits for an event that another thread fires once it saw the
    // block_on caller waiting for it in the reactor's poll.
    test::manual_event seen_waiting;
    entries seen;
    std::thread observer([&] {
        seen = read_board_until(*board, [](const entries& e) {
            return e[0].what == state::in_reactor && e[0].call == "poll";
        });
        seen_waiting.fire();
    });
    const state inside =
        rt.block_on([](const runtime_activity& board, test::manual_event& event) -> task<state> {
            const state now = board.snapshot()[0].what;
            co_await event.wait();
            co_return now;
        }(*board, seen_waiting));
    observer.join();
    CHECK(inside == state::running);
    REQUIRE(seen[0].what == state::in_reactor);
    CHECK(seen[0].call == "poll");
    CHECK(seen[0].plugin == "epoll");
    CHECK(seen[0].for_how_long.has_value());
    CHECK(board->snapshot()[0].what == state::not_driven);  // back between calls

    rt.shutdown();
    CHECK(board->snapshot()[0].what == state::stopped);
}
