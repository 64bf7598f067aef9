// Trace events (runtime_config::trace): a real runtime writes its trace, and
// the JSON is read back with nlohmann-json and checked against the format
// kernel/README.md ("Trace events") documents.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

/// A trace file of its own for each test, removed at the end.
struct trace_file {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("rtkit-trace-test-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(counter()++) + ".json");
    ~trace_file() { std::filesystem::remove(path); }
    static int& counter() {
        static int next = 0;
        return next;
    }
    runtime_config config(runtime_config c = {}, std::size_t buffer_events = 4096) const {
        c.trace.enabled = true;
        c.trace.file = path;
        c.trace.buffer_events = buffer_events;
        return c;
    }
    json read() const {
        std::ifstream in(path);
        REQUIRE(in.good());
        json trace = json::parse(in);  // throws on invalid JSON
        REQUIRE(trace.is_object());
        CHECK(trace["displayTimeUnit"] == "ns");
        REQUIRE(trace["traceEvents"].is_array());
        return trace["traceEvents"];
    }
};

std::vector<json> events_where(const json& events, const std::string& ph, const std::string& name) {
    std::vector<json> found;
    for (const json& e : events)
        if (e["ph"] == ph && e["name"] == name) found.push_back(e);
    return found;
}

/// Every event has the fields the viewers need, of the right types.
void check_common_fields(const json& events) {
    for (const json& e : events) {
        CAPTURE(e.dump());
        REQUIRE(e.contains("ph"));
        CHECK(e["name"].is_string());
        CHECK(e["pid"] == 1);
        CHECK(e["tid"].is_number_unsigned());
        if (e["ph"] == "M") continue;
        CHECK(e["cat"].is_string());
        CHECK(e["ts"].is_number());
        if (e["ph"] == "X") CHECK(e["dur"].is_number());
    }
}

/// Every flow's end has its start, on the same id, and no id starts twice.
void check_flows_pair(const json& events) {
    std::map<std::uint64_t, int> starts;
    for (const json& e : events)
        if (e["ph"] == "s") ++starts[e["id"].get<std::uint64_t>()];
    for (const auto& [id, count] : starts)
        CHECK(count == 1);
    for (const json& e : events)
        if (e["ph"] == "f") {
            CHECK(e["bp"] == "e");
            CHECK(starts.count(e["id"].get<std::uint64_t>()) == 1);
        }
}

/// The spawn event of the task named `name`.
json spawn_of(const json& events, const std::string& name) {
    for (const json& e : events_where(events, "i", "spawn"))
        if (e["args"]["name"] == name) return e;
    FAIL("no spawn of " << name);
    return {};
}

std::uint64_t task_of(const json& e) {
    return e["args"]["task"].get<std::uint64_t>();
}

/// Wakes its task from inside its own poll once, then waits for that wake.
struct wake_self_once {
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<>) {
        current_waker().wake();
        return true;
    }
    void await_resume() const noexcept {}
};

task<void> wait_for(test::manual_event& event) {
    co_await event.wait();
}

task<void> fire_after_yield(test::manual_event& event) {
    co_await yield_now();
    event.fire();
}

}  // namespace

TEST_CASE("trace - named tasks show their spawns and polls and wakes and ends") {
    trace_file file;
    test::manual_event event;
    {
        runtime rt(file.config(test::virtual_clock()));
        rt.block_on([&]() -> task<void> {
            auto sleeper = spawn("sleeper", []() -> task<void> { co_await sleep(5ms); }());
            auto waiter = spawn("waiter", wait_for(event));
            auto firer = spawn("firer", fire_after_yield(event));
            (void)co_await std::move(sleeper);
            (void)co_await std::move(waiter);
            (void)co_await std::move(firer);
        }());
    }
    const json events = file.read();
    check_common_fields(events);
    check_flows_pair(events);

    const auto names = events_where(events, "M", "thread_name");
    REQUIRE(names.size() == 1);
    CHECK(names[0]["tid"] == 0);
    CHECK(names[0]["args"]["name"] == "worker 0");

    std::map<std::string, std::uint64_t> ids;
    for (const std::string name : {"sleeper", "waiter", "firer"}) {
        CAPTURE(name);
        const json spawn = spawn_of(events, name);
        CHECK(spawn["cat"] == "task");
        CHECK(spawn["s"] == "t");
        CHECK(spawn["args"]["parent"].get<std::uint64_t>() != 0);
        CHECK(spawn["args"]["site"].get<std::string>().find("trace_test.cpp:") !=
              std::string::npos);
        CHECK(spawn["args"].contains("frame_bytes"));
        ids[name] = task_of(spawn);
        // Its polls carry its name and id; it ended once, completed.
        int polls = 0;
        for (const json& e : events)
            if (e["ph"] == "X" && e["cat"] == "poll" && task_of(e) == ids[name]) {
                CHECK(e["name"] == name);
                CHECK(e["args"]["lane"] == "ready");
                CHECK(e["args"]["site"] == spawn["args"]["site"]);
                ++polls;
            }
        CHECK(polls >= 1);
        int ends = 0;
        for (const json& e : events_where(events, "i", "end"))
            if (task_of(e) == ids[name]) {
                CHECK(e["args"]["outcome"] == "completed");
                ++ends;
            }
        CHECK(ends == 1);
    }
    // The sleeper and the waiter were polled twice: once to wait, once woken.
    for (const std::string name : {"sleeper", "waiter"}) {
        CAPTURE(name);
        int polls = 0;
        for (const json& e : events_where(events, "X", name))
            polls += task_of(e) == ids[name];
        CHECK(polls == 2);
    }
    // The firer woke the waiter from its worker's thread: a flow from the
    // wake to the waiter's second poll.
    bool waiter_woken = false;
    for (const json& s : events_where(events, "s", "wake"))
        if (task_of(s) == ids["waiter"]) {
            CHECK(s["args"]["from"] == "same_worker");
            CHECK(s["args"]["self"] == false);
            for (const json& f : events_where(events, "f", "wake"))
                if (f["id"] == s["id"]) {
                    waiter_woken = true;
                    // At the start of a poll of the waiter on the same track.
                    bool at_poll = false;
                    for (const json& p : events_where(events, "X", "waiter"))
                        at_poll |= p["ts"] == f["ts"] && p["tid"] == f["tid"];
                    CHECK(at_poll);
                }
        }
    CHECK(waiter_woken);
    // The sleep armed a timer, which fired.
    bool armed = false;
    for (const json& e : events_where(events, "i", "arm"))
        armed |= e["cat"] == "timer" && task_of(e) == ids["sleeper"];
    CHECK(armed);
    CHECK_FALSE(events_where(events, "i", "fire").empty());
    // The counter track: tasks alive and queued.
    const auto counters = events_where(events, "C", "tasks");
    REQUIRE_FALSE(counters.empty());
    CHECK(counters[0]["args"].contains("alive"));
    CHECK(counters[0]["args"].contains("queued"));
}

TEST_CASE("trace - a task that wakes itself in its poll is a self wake") {
    trace_file file;
    {
        runtime rt(file.config());
        rt.block_on([]() -> task<void> {
            (void)co_await spawn("selfish", []() -> task<void> { co_await wake_self_once{}; }());
        }());
    }
    const json events = file.read();
    check_flows_pair(events);
    const std::uint64_t id = task_of(spawn_of(events, "selfish"));
    int self_wakes = 0;
    for (const json& s : events_where(events, "s", "wake"))
        if (task_of(s) == id) {
            CHECK(s["args"]["self"] == true);
            CHECK(s["args"]["from"] == "same_worker");
            ++self_wakes;
        }
    CHECK(self_wakes == 1);
}

TEST_CASE("trace - a cancelled task ends cancelled after its cancel request") {
    trace_file file;
    {
        runtime rt(file.config(test::virtual_clock()));
        rt.block_on([]() -> task<void> {
            auto sleeper = spawn("sleeper", []() -> task<void> { co_await sleep(1h); }());
            co_await yield_now();
            sleeper.cancel();
            (void)co_await std::move(sleeper);
        }());
    }
    const json events = file.read();
    const std::uint64_t id = task_of(spawn_of(events, "sleeper"));
    int cancels = 0;
    for (const json& e : events_where(events, "i", "cancel"))
        if (e["cat"] == "task" && task_of(e) == id) ++cancels;
    CHECK(cancels == 1);
    int ends = 0;
    for (const json& e : events_where(events, "i", "end"))
        if (task_of(e) == id) {
            CHECK(e["args"]["outcome"] == "cancelled");
            ++ends;
        }
    CHECK(ends == 1);
    // Its timer was cancelled, or it unwound from the cancel lane.
    bool polled_from_cancel_lane = false;
    for (const json& e : events_where(events, "X", "sleeper"))
        polled_from_cancel_lane |= e["args"]["lane"] == "cancel";
    CHECK(polled_from_cancel_lane);
}

TEST_CASE("trace - a wake from a thread that drives no worker is an outside wake") {
    trace_file file;
    test::manual_event event;
    {
        runtime rt(file.config());
        std::thread firer([&] {
            REQUIRE(event.wait_until_armed(60s));
            event.fire();
        });
        rt.block_on([&]() -> task<void> { (void)co_await spawn("waiter", wait_for(event)); }());
        firer.join();
    }
    const json events = file.read();
    check_common_fields(events);
    check_flows_pair(events);
    const std::uint64_t id = task_of(spawn_of(events, "waiter"));
    bool outside = false;
    for (const json& s : events_where(events, "s", "wake"))
        if (task_of(s) == id && s["args"]["from"] == "outside") {
            outside = true;
            CHECK(s["tid"].get<int>() >= 1000);
            bool named = false;
            for (const json& m : events_where(events, "M", "thread_name"))
                named |= m["tid"] == s["tid"];
            CHECK(named);
        }
    CHECK(outside);
}

TEST_CASE("trace - a worker waiting for a timer parks on its track") {
    trace_file file;
    {
        runtime rt(file.config());  // the monotonic clock: waits take time
        rt.block_on([]() -> task<void> {
            (void)co_await spawn("sleeper", []() -> task<void> { co_await sleep(2ms); }());
        }());
    }
    const json events = file.read();
    const auto parks = events_where(events, "X", "park");
    REQUIRE_FALSE(parks.empty());
    double parked_us = 0;
    for (const json& p : parks) {
        CHECK(p["cat"] == "park");
        CHECK(p["tid"] == 0);
        parked_us += p["dur"].get<double>();
    }
    // Nothing else could run until the timer was due.
    CHECK(parked_us > 0);
    // Each park is preceded by the counter track's sample.
    CHECK(events_where(events, "C", "tasks").size() >= parks.size());
}

TEST_CASE("trace - a region opens and closes around the tasks spawned in it") {
    trace_file file;
    region_id inside{};
    {
        runtime rt(file.config(test::virtual_clock()));
        rt.block_on([&]() -> task<void> {
            co_await cx::current().region([&](cx scope) -> task<void> {
                inside = scope.region_id();
                (void)scope.spawn("in_region", []() -> task<void> { co_await sleep(1ms); }());
                co_return;
            });
        }());
    }
    const json events = file.read();
    const auto opened = events_where(events, "i", "open");
    const auto closed = events_where(events, "i", "close");
    REQUIRE(opened.size() == 1);
    REQUIRE(closed.size() == 1);
    CHECK(opened[0]["cat"] == "region");
    CHECK(opened[0]["args"]["region"] == inside.raw);
    CHECK(closed[0]["args"]["region"] == inside.raw);
    // The region closed after its task ended: at 1 ms of virtual time.
    const std::uint64_t id = task_of(spawn_of(events, "in_region"));
    for (const json& e : events_where(events, "i", "end"))
        if (task_of(e) == id) CHECK(e["ts"].get<double>() <= closed[0]["ts"].get<double>());
    CHECK(closed[0]["ts"] == 1000.0);
}

TEST_CASE("trace - a multi_thread runtime has one track per worker") {
    trace_file file;
    {
        runtime rt(file.config(test::multi_thread(2)));
        rt.block_on([]() -> task<void> {
            std::vector<join_handle<void>> tasks;
            for (int i = 0; i < 200; ++i)
                tasks.push_back(spawn("yielder", []() -> task<void> {
                    for (int round = 0; round < 3; ++round)
                        co_await yield_now();
                }()));
            for (auto& t : tasks)
                (void)co_await std::move(t);
        }());
    }
    const json events = file.read();
    check_common_fields(events);
    check_flows_pair(events);
    std::set<int> tracks;
    for (const json& m : events_where(events, "M", "thread_name"))
        if (m["tid"].get<int>() < 1000) {
            tracks.insert(m["tid"].get<int>());
            CHECK(m["args"]["name"] == "worker " + std::to_string(m["tid"].get<int>()));
        }
    CHECK(tracks == std::set<int>{0, 1});
    int polls = 0;
    for (const json& e : events_where(events, "X", "yielder")) {
        CHECK(tracks.count(e["tid"].get<int>()) == 1);
        ++polls;
    }
    CHECK(polls == 200 * 4);
    CHECK(events_where(events, "i", "spawn").size() == 200);
    CHECK(events_where(events, "i", "end").size() == 200);
}

TEST_CASE("trace - a small buffer writes the same events as it fills") {
    const auto run = [](std::size_t buffer_events) {
        trace_file file;
        {
            runtime rt(file.config(test::virtual_clock(), buffer_events));
            rt.block_on([]() -> task<void> {
                std::vector<join_handle<void>> tasks;
                for (int i = 0; i < 50; ++i)
                    tasks.push_back(spawn("napper", []() -> task<void> { co_await sleep(1ms); }()));
                for (auto& t : tasks)
                    (void)co_await std::move(t);
            }());
        }
        std::multiset<std::string> kinds;
        for (const json& e : file.read())
            kinds.insert(e["ph"].get<std::string>() + " " + e["name"].get<std::string>());
        return kinds;
    };
    const auto whole = run(4096);
    CHECK(whole.count("X napper") == 100);
    CHECK(run(1) == whole);
    CHECK(run(7) == whole);
}

TEST_CASE("trace - disabled tracing writes nothing") {
    trace_file file;
    runtime_config c = file.config();
    c.trace.enabled = false;
    {
        runtime rt(c);
        rt.block_on([]() -> task<void> {
            (void)co_await spawn("quiet", []() -> task<void> { co_return; }());
        }());
    }
    CHECK_FALSE(std::filesystem::exists(file.path));
}

TEST_CASE("trace - a file that cannot be written is refused with its path") {
    runtime_config c;
    c.trace.enabled = true;
    c.trace.file = "/nonexistent-rtkit-dir/trace.json";
    try {
        runtime rt(c);
        FAIL("the runtime started");
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        CHECK(what.find("/nonexistent-rtkit-dir/trace.json") != std::string::npos);
        CHECK(what.find("No such file or directory") != std::string::npos);
    }
    c.trace.file = std::filesystem::temp_directory_path() / "rtkit-trace-never-written.json";
    c.trace.buffer_events = 0;
    CHECK_THROWS_AS(runtime{c}, std::invalid_argument);
    CHECK_FALSE(std::filesystem::exists(c.trace.file));
}

// --- Lost wake-ups (kernel/src/lost_wakes.hpp) and frame sizes ---

namespace {

/// An awaitable that takes its task's waker and drops it before it suspends:
/// a lost wake-up.
struct drops_its_waker {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) { (void)current_waker(); }
    void await_resume() const noexcept {}
};

/// An awaitable that suspends without ever asking for a waker.
struct never_asks {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept {}
    void await_resume() const noexcept {}
};

/// Where an awaiting task leaves its waker for someone else to wake or drop.
struct mailbox {
    std::mutex lock;
    waker left;
    test::signal_flag filled;
    struct awaiter {
        mailbox& box;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<>) {
            {
                std::lock_guard guard(box.lock);
                box.left = current_waker();
            }
            box.filled.set();
        }
        void await_resume() const noexcept {}
    };
    awaiter wait() { return awaiter{*this}; }
    waker take() {
        std::lock_guard guard(lock);
        return std::move(left);
    }
};

/// The ids of the tasks the trace reports as lost wake-ups, checking each event.
std::multiset<std::uint64_t> lost_wakes(const json& events) {
    std::multiset<std::uint64_t> lost;
    for (const json& e : events_where(events, "i", "lost_wake")) {
        CHECK(e["cat"] == "lint");
        CHECK(e["s"] == "t");
        CHECK(e["args"]["name"].is_string());
        CHECK(e["args"]["site"].is_string());
        lost.insert(task_of(e));
    }
    return lost;
}

/// Waits in `box`; a cancellation that woke it ends it cancelled (the
/// mailbox, like most hand-written awaitables, does not look).
task<void> wait_in(mailbox& box) {
    co_await box.wait();
    cx::current().checkpoint();
}

task<int> receive_one(sync::channel_receiver<int> rx) {
    const std::optional<int> value = co_await rx.recv();
    co_return value.value_or(-1);
}

std::string outcome_of(const json& events, std::uint64_t id) {
    for (const json& e : events_where(events, "i", "end"))
        if (task_of(e) == id) return e["args"]["outcome"];
    return "(none)";
}

}  // namespace

TEST_CASE("trace - a task whose awaiter drops or never takes its waker is a lost wake-up") {
    trace_file file;
    {
        runtime rt(file.config());  // current_thread: each suspends before the root goes on
        rt.block_on([]() -> task<void> {
            auto dropped = spawn("dropped", []() -> task<void> {
                co_await drops_its_waker{};
                cx::current().checkpoint();
            }());
            auto never = spawn("never", []() -> task<void> {
                co_await never_asks{};
                cx::current().checkpoint();
            }());
            co_await yield_now();
            co_await yield_now();
            // Both can only be cancelled now: the first is, the second goes
            // with the runtime's shutdown. Neither is reported again.
            dropped.cancel();
            (void)co_await std::move(dropped);
        }());
    }
    const json events = file.read();
    check_common_fields(events);
    const json dropped = spawn_of(events, "dropped");
    const json never = spawn_of(events, "never");
    CHECK(lost_wakes(events) == std::multiset<std::uint64_t>{task_of(dropped), task_of(never)});
    for (const json& e : events_where(events, "i", "lost_wake")) {
        const json& spawn = task_of(e) == task_of(dropped) ? dropped : never;
        CHECK(e["args"]["name"] == spawn["args"]["name"]);
        CHECK(e["args"]["site"] == spawn["args"]["site"]);
        CHECK(e["tid"] == 0);  // seen on the worker, as the poll ended
    }
    CHECK(outcome_of(events, task_of(dropped)) == "cancelled");
    CHECK(outcome_of(events, task_of(never)) == "cancelled");
}

TEST_CASE("trace - a waker dropped by another thread without a wake is a lost wake-up") {
    trace_file file;
    mailbox box;
    test::signal_flag suspended, dropped;
    {
        runtime rt(file.config());  // current_thread: the root runs once the poll ended
        std::thread dropper([&] {
            REQUIRE(suspended.wait_for(60s));
            waker w = box.take();
            waker clone = w;  // the last of two references goes
            w.reset();
            clone.reset();
            dropped.set();
        });
        rt.block_on([&]() -> task<void> {
            (void)spawn("forgotten", wait_in(box));
            co_await test::yield_until([&] { return box.filled.is_set(); });
            suspended.set();  // with one waker left, held by the dropper
            co_await test::yield_until([&] { return dropped.is_set(); });
        }());
        dropper.join();
    }
    const json events = file.read();
    check_common_fields(events);
    const std::uint64_t id = task_of(spawn_of(events, "forgotten"));
    CHECK(lost_wakes(events) == std::multiset<std::uint64_t>{id});
    // Reported by the thread that dropped it: a track of its own.
    for (const json& e : events_where(events, "i", "lost_wake"))
        CHECK(e["tid"].get<int>() >= 1000);
    CHECK(outcome_of(events, id) == "cancelled");  // by the shutdown
}

TEST_CASE("trace - a waker another thread holds and wakes later is no lost wake-up") {
    test::on_both_flavors([](runtime_config flavor) {
        trace_file file;
        mailbox box;
        {
            runtime rt(file.config(flavor));
            std::thread waker_thread([&] {
                REQUIRE(box.filled.wait_for(60s));
                waker w = box.take();
                waker clone = w;
                w.reset();  // not the last: the clone wakes it
                clone.wake();
            });
            rt.block_on([&]() -> task<void> { (void)co_await spawn("woken", wait_in(box)); }());
            waker_thread.join();
        }
        const json events = file.read();
        CHECK(lost_wakes(events).empty());
        CHECK(outcome_of(events, task_of(spawn_of(events, "woken"))) == "completed");
    });
}

TEST_CASE("trace - waits on channels and timers and sockets and joins are no lost wake-ups") {
    test::on_both_flavors([](runtime_config flavor) {
        trace_file file;
        {
            runtime rt(file.config(flavor));
            rt.block_on([]() -> task<void> {
                auto [tx, rx] = sync::make_channel<int>(1);
                auto receiver = spawn("receiver", receive_one(std::move(rx)));
                auto sleeper = spawn("sleeper", []() -> task<void> { co_await sleep(1ms); }());
                auto joiner = spawn("joiner", [](join_handle<void> inner) -> task<void> {
                    (void)co_await std::move(inner);
                }(spawn("joined", []() -> task<void> { co_await sleep(2ms); }())));
                auto a = net::udp_socket::bind(net::socket_address::loopback(0));
                auto b = net::udp_socket::bind(net::socket_address::loopback(0));
                auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
                const net::socket_address b_at = b.local_address();
                const net::socket_address listener_at = listener.local_address();
                auto datagram = spawn("datagram", [](net::udp_socket b) -> task<std::size_t> {
                    char buffer[16];
                    co_return (co_await b.recv_from(buffer, sizeof buffer)).size;
                }(std::move(b)));
                auto stream = spawn("stream", [](net::tcp_listener l) -> task<std::size_t> {
                    net::tcp_stream peer = co_await l.accept();
                    char buffer[16];
                    co_return co_await peer.read(buffer, sizeof buffer);
                }(std::move(listener)));
                // Each waits before it is answered.
                for (int i = 0; i < 4; ++i)
                    co_await yield_now();
                (void)co_await tx.send(7);
                CHECK(co_await a.send_to("ping", b_at) == 4);
                net::tcp_stream client = co_await net::tcp_stream::connect(listener_at);
                CHECK(co_await client.write("pong", 4) == 4);
                CHECK((co_await std::move(receiver)).value() == 7);
                (void)co_await std::move(sleeper);
                (void)co_await std::move(joiner);
                CHECK((co_await std::move(datagram)).value() == 4);
                CHECK((co_await std::move(stream)).value() == 4);
                // One more waits for ever on a channel: the shutdown ends it.
                auto [never_tx, never_rx] = sync::make_channel<int>(1);
                (void)spawn("unanswered", receive_one(std::move(never_rx)));
                co_await yield_now();
            }());
        }
        const json events = file.read();
        CHECK(events_where(events, "i", "spawn").size() == 7);
        CHECK(lost_wakes(events).empty());
    });
}

namespace {

/// Takes the waker `box` holds and keeps it while it sleeps for an hour.
task<void> hold_waker_of(mailbox& box, test::signal_flag& holding) {
    co_await test::yield_until([&] { return box.filled.is_set(); });
    waker held = box.take();
    holding.set();
    co_await sleep(std::chrono::hours(1));
}

}  // namespace

TEST_CASE("trace - cancelling a task whose waker is held elsewhere is no lost wake-up") {
    test::on_both_flavors([](runtime_config flavor) {
        trace_file file;
        mailbox box;
        {
            runtime rt(file.config(flavor));
            rt.block_on([&]() -> task<void> {
                auto waiting = spawn("waiting", wait_in(box));
                co_await test::yield_until([&] { return box.filled.is_set(); });
                waiting.cancel();
                (void)co_await std::move(waiting);
                box.take().reset();  // its last waker, after it ended
            }());
        }
        const json events = file.read();
        CHECK(lost_wakes(events).empty());
        CHECK(outcome_of(events, task_of(spawn_of(events, "waiting"))) == "cancelled");
    });
}

TEST_CASE("trace - a shutdown that unwinds the holder of a task's waker is no lost wake-up") {
    test::on_both_flavors([](runtime_config flavor) {
        trace_file file;
        mailbox box;
        test::signal_flag holding;
        {
            runtime rt(file.config(flavor));
            rt.block_on([&]() -> task<void> {
                (void)spawn("waiting", wait_in(box));
                (void)spawn("holder", hold_waker_of(box, holding));
                co_await test::yield_until([&] { return holding.is_set(); });
            }());
        }
        const json events = file.read();
        CHECK(lost_wakes(events).empty());
        CHECK(outcome_of(events, task_of(spawn_of(events, "waiting"))) == "cancelled");
        CHECK(outcome_of(events, task_of(spawn_of(events, "holder"))) == "cancelled");
    });
}

TEST_CASE("trace - a wait that a timeout scope ends is no lost wake-up") {
    trace_file file;
    {
        runtime rt(file.config(test::virtual_clock()));
        rt.block_on([]() -> task<void> {
            (void)co_await spawn("bounded", []() -> task<void> {
                const bool in_time = co_await timeout(5ms, []() -> task<void> {
                    co_await never_asks{};
                    cx::current().checkpoint();
                }());
                CHECK_FALSE(in_time);
            }());
        }());
    }
    const json events = file.read();
    CHECK(lost_wakes(events).empty());
    CHECK(outcome_of(events, task_of(spawn_of(events, "bounded"))) == "completed");
}

namespace {

constexpr std::size_t big_array = 20000;

/// A frame that holds `big_array` bytes across an await.
task<std::size_t> big_frame() {
    std::array<char, big_array> bytes{};
    co_await yield_now();
    bytes[1] = 1;
    co_return bytes.size() + bytes[1];
}

}  // namespace

TEST_CASE("trace - a spawn records the size of its task's frame") {
    test::on_both_flavors([](runtime_config flavor) {
        trace_file file;
        {
            runtime rt(file.config(flavor));
            rt.block_on([]() -> task<void> {
                CHECK((co_await spawn("big", big_frame())).value() == big_array + 1);
                (void)co_await spawn("small", []() -> task<void> { co_return; }());
            }());
        }
        const json events = file.read();
        CHECK(spawn_of(events, "big")["args"]["frame_bytes"].get<std::uint64_t>() >= big_array);
        const auto small = spawn_of(events, "small")["args"]["frame_bytes"].get<std::uint64_t>();
        CHECK(small >= 48);  // the task header at least
        CHECK(small < 1024);
    });
}
