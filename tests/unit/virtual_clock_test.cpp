// The runtime's one clock: the virtual clock, and timeouts that count from
// the call.
#include <doctest/doctest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fault_plugins.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Whether thread `tid` of this process sleeps in the kernel (state S).
bool sleeping(pid_t tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), {});
    const std::size_t after_name = text.rfind(')');
    return after_name != std::string::npos && text.size() > after_name + 2 &&
           text[after_name + 2] == 'S';
}

/// Sleeps `d`, then notes the clock's reading.
task<void> sleep_then_note(duration d, std::vector<duration>& woke_at) {
    co_await sleep(d);
    woke_at.push_back(cx::current().now().time_since_epoch());
}

}  // namespace

TEST_CASE("virtual clock: starts at zero and jumps to each deadline in order") {
    runtime rt(test::virtual_clock());
    std::vector<duration> woke_at;
    rt.block_on([&]() -> task<void> {
        CHECK(cx::current().now() == instant{});
        auto late = spawn(sleep_then_note(3h, woke_at));
        auto early = spawn(sleep_then_note(1h, woke_at));
        auto middle = spawn(sleep_then_note(2h, woke_at));
        (void)co_await std::move(late);
        (void)co_await std::move(early);
        (void)co_await std::move(middle);
    }());
    // An exact reading at each deadline: the clock jumped, nothing slept.
    CHECK(woke_at == std::vector<duration>{1h, 2h, 3h});
    CHECK(rt.description().clock == "virtual");
}

TEST_CASE("virtual clock: a timeout fires at its virtual deadline") {
    runtime rt(test::virtual_clock());
    rt.block_on([]() -> task<void> {
        co_await sleep(5s);
        const bool finished = co_await timeout(10ms, []() -> task<void> { co_await sleep(1h); }());
        CHECK_FALSE(finished);
        CHECK(cx::current().now().time_since_epoch() == 5s + 10ms);
    }());
}

TEST_CASE("virtual clock: stands still while a task awaits I/O") {
    runtime rt(test::virtual_clock());
    rt.block_on([&rt]() -> task<void> {
        net::pipe_ends p = net::open_pipe();
        std::vector<duration> woke_at;
        auto sleeper = spawn(sleep_then_note(1s, woke_at));
        // The writer is another thread: the runtime cannot see it coming, so
        // it must not jump past the sleeper's deadline while the read waits.
        const pid_t driver = static_cast<pid_t>(::syscall(SYS_gettid));
        std::thread writer([&rt, driver, fd = p.writer.native_handle()] {
            // Writes once the sleeper's timer is armed and the driving thread
            // sleeps: a runtime that ignored the awaited read has jumped to
            // the timer by then; a right one waits in the reactor.
            while (rt.metrics().timers_pending == 0 || !sleeping(driver))
                std::this_thread::yield();
            const char byte = 'x';
            REQUIRE(::write(fd, &byte, 1) == 1);
        });
        char got = 0;
        const std::size_t n = co_await p.reader.read(&got, 1);
        const instant read_at = cx::current().now();
        writer.join();
        CHECK(n == 1);
        CHECK(read_at == instant{});  // no jump while the read was awaited
        p.reader.close();
        p.writer.close();
        (void)co_await std::move(sleeper);
        CHECK(woke_at == std::vector<duration>{1s});
    }());
}

TEST_CASE("virtual clock: refused where it cannot work") {
    runtime_config multi = test::virtual_clock();
    multi.flavor = "multi_thread";
    multi.workers = 2;
    CHECK_THROWS_WITH_AS(runtime{multi}, doctest::Contains("current_thread"),
                         std::invalid_argument);
    runtime_config unknown;
    unknown.clock = "sundial";
    CHECK_THROWS_WITH_AS(runtime{unknown}, doctest::Contains("sundial"), std::invalid_argument);
}

TEST_CASE("timeout: counts from the call and not from the first wait") {
    runtime_config config = test::config_with_faulty("timer");
    runtime rt(config);
    test::plugin_control& timer = test::control_of("timer");
    rt.block_on([&]() -> task<void> {
        const instant called = cx::current().now();
        instant first_wait{};
        const bool finished = co_await timeout(30ms, [&]() -> task<void> {
            // Work before the first wait counts against the limit.
            while (cx::current().now() < called + 60ms) {
            }
            first_wait = cx::current().now();
            co_await sleep(1h);
        }());
        CHECK_FALSE(finished);
        const instant deadline = timer.last_inserted_deadline();
        CHECK(deadline >= called + 30ms);     // never early
        CHECK(deadline < first_wait + 30ms);  // not counted from the first wait
    }());
}
