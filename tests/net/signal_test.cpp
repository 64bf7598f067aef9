// Signals as streams: real signals sent to this process, seen by every
// listener through the reactor, on every reactor and flavor; the old
// disposition back once the last listener goes; signals during shutdown.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include "net_support.hpp"

using namespace rtkit;

namespace {

/// The handler `signal` has now (SIG_DFL, SIG_IGN or a function), as a number
/// doctest can print.
std::uintptr_t disposition(int signal) {
    struct sigaction now {};
    ::sigaction(signal, nullptr, &now);
    return reinterpret_cast<std::uintptr_t>(now.sa_handler);
}
const std::uintptr_t default_disposition = reinterpret_cast<std::uintptr_t>(SIG_DFL);
const std::uintptr_t ignored = reinterpret_cast<std::uintptr_t>(SIG_IGN);

/// This thread's signal mask.
sigset_t current_mask() {
    sigset_t mask;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    return mask;
}

bool same_mask(const sigset_t& a, const sigset_t& b) {
    for (int s = 1; s <= 64; ++s)
        if (sigismember(&a, s) != sigismember(&b, s)) return false;
    return true;
}

/// How many pipe descriptors this process has open.
int open_pipes() {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        if (std::filesystem::read_symlink(entry.path(), ec).string().rfind("pipe:", 0) == 0) ++n;
    }
    return n;
}

/// Sends `signal` to the process (any thread may run the handler). Under
/// ThreadSanitizer it is aimed at the calling thread instead: TSan runs a
/// handler only when the thread it landed on next enters a function TSan
/// intercepts, and a reactor blocked in epoll_pwait2 (not intercepted) would
/// never do so.
int signal_process(int signal) {
#if defined(__SANITIZE_THREAD__)
    return ::pthread_kill(::pthread_self(), signal);
#else
    return ::kill(::getpid(), signal);
#endif
}

void send_to_process(int signal) {
    REQUIRE(signal_process(signal) == 0);
}

task<int> next_of(signal_stream& s) {
    co_return co_await s.next();
}

}  // namespace

TEST_CASE("signals: a stream sees a signal sent while its task waits in the reactor") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        std::atomic<pid_t> waiting_thread{0};
        std::thread sender;
        const int got = rt.block_on([&]() -> task<int> {
            signal_stream usr1(SIGUSR1);
            CHECK(disposition(SIGUSR1) != default_disposition);
            // Sent once this thread sleeps: the root waits in the reactor
            // (current_thread) or parked while a worker does (multi_thread).
            sender = std::thread([&] {
                net_test::wait_until_asleep(waiting_thread);
                send_to_process(SIGUSR1);
            });
            waiting_thread = ::gettid();
            co_return co_await usr1.next();
        }());
        sender.join();
        CHECK(got == SIGUSR1);
        CHECK(disposition(SIGUSR1) == default_disposition);
    }
}

TEST_CASE("signals: every listener sees every signal - in one runtime and in another") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        constexpr int rounds = 5;
        runtime rt(net_test::config_for(setup));
        runtime other(net_test::config_for("epoll"));
        // The other runtime's listener says when it saw each round, so that
        // the next signal is not merged with one it has not taken yet.
        auto [seen_tx, seen_rx] = sync::make_channel<int>(rounds);
        std::atomic<bool> other_listening{false};
        std::thread other_thread([&, tx = std::move(seen_tx)]() mutable {
            other.block_on([&]() -> task<void> {
                signal_stream usr2(SIGUSR2);
                other_listening = true;
                for (int round = 0; round < rounds; ++round) {
                    const int s = co_await usr2.next();
                    co_await tx.send(s);
                }
            }());
        });
        rt.block_on([&]() -> task<void> {
            signal_stream first(SIGUSR2);
            signal_stream second({SIGUSR1, SIGUSR2});
            while (!other_listening)
                std::this_thread::yield();  // (its root yielding would keep the reactor unpolled)
            for (int round = 0; round < rounds; ++round) {
                send_to_process(SIGUSR2);
                CHECK(co_await first.next() == SIGUSR2);
                CHECK(co_await second.next() == SIGUSR2);
                const std::optional<int> there = co_await seen_rx.recv();
                CHECK(there == SIGUSR2);
                CHECK(!first.try_next());
                CHECK(!second.try_next());
            }
        }());
        other_thread.join();
        CHECK(disposition(SIGUSR2) == default_disposition);
    }
}

TEST_CASE("signals: arrivals come out in order - each signal once until it is taken") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            signal_stream s({SIGUSR1, SIGUSR2, SIGHUP});
            CHECK(!s.try_next());
            ::raise(SIGUSR2);  // the handler runs before raise returns
            ::raise(SIGHUP);
            ::raise(SIGUSR2);  // merged with the first, not yet taken
            ::raise(SIGUSR1);
            CHECK(co_await s.next() == SIGUSR2);
            CHECK(co_await s.next() == SIGHUP);
            CHECK(s.try_next() == SIGUSR1);
            CHECK(!s.try_next());
            ::raise(SIGUSR2);  // taken before: counts again
            CHECK(co_await s.next() == SIGUSR2);
        }());
        CHECK(disposition(SIGHUP) == default_disposition);
    }
}

TEST_CASE(
    "signals: the last listener to go puts the old disposition back - the mask is untouched") {
    runtime rt(net_test::config_for("epoll"));
    const sigset_t mask_before = current_mask();
    REQUIRE(reinterpret_cast<std::uintptr_t>(::signal(SIGUSR2, SIG_IGN)) ==
            default_disposition);  // a disposition that is not the default
    rt.block_on([&]() -> task<void> {
        std::optional<signal_stream> a(std::in_place, SIGUSR1);
        std::optional<signal_stream> b(std::in_place, SIGUSR1);
        std::optional<signal_stream> c(std::in_place, SIGUSR2);
        auto installed = disposition(SIGUSR1);
        CHECK(installed != default_disposition);
        CHECK(disposition(SIGUSR2) == installed);
        a.reset();
        CHECK(disposition(SIGUSR1) == installed);  // b still listens
        b.reset();
        CHECK(disposition(SIGUSR1) == default_disposition);
        c.reset();
        CHECK(disposition(SIGUSR2) == ignored);
        // A new listener installs the handler again and sees only what comes after it.
        signal_stream again(SIGUSR1);
        CHECK(!again.try_next());
        ::raise(SIGUSR1);
        CHECK(co_await again.next() == SIGUSR1);
        CHECK(same_mask(current_mask(), mask_before));
    }());
    CHECK(disposition(SIGUSR1) == default_disposition);
    CHECK(same_mask(current_mask(), mask_before));
    ::signal(SIGUSR2, SIG_DFL);
}

TEST_CASE("signals: a stream moved into a task keeps listening") {
    runtime rt(net_test::config_for("uring"));
    rt.block_on([]() -> task<void> {
        signal_stream s(SIGUSR1);
        signal_stream moved(std::move(s));
        auto waiter = spawn([](signal_stream mine) -> task<int> {
            co_return co_await mine.next();
        }(std::move(moved)));
        ::raise(SIGUSR1);
        outcome<int> got = co_await std::move(waiter);
        CHECK(std::move(got).value() == SIGUSR1);
    }());
    CHECK(disposition(SIGUSR1) == default_disposition);
}

TEST_CASE("signals: a cancelled wait takes nothing - the stream goes on") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            signal_stream s(SIGUSR1);
            auto waiter = spawn(next_of(s));
            co_await yield_now();  // current_thread: the waiter now waits in next()
            waiter.cancel();
            const outcome<int> cancelled = co_await std::move(waiter);
            CHECK(cancelled.is_cancelled());
            ::raise(SIGUSR1);
            CHECK(co_await s.next() == SIGUSR1);
        }());
    }
}

TEST_CASE("signals: signals that cannot be awaited are refused with the reason") {
    const std::uintptr_t sigint_before = disposition(SIGINT);  // the test runner catches SIGINT
    runtime rt(net_test::config_for("epoll"));
    rt.block_on([]() -> task<void> {
        for (const int bad : {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, 0, 65, -1}) {
            INFO(bad);
            CHECK_THROWS_AS(signal_stream{bad}, std::invalid_argument);
        }
        CHECK_THROWS_WITH_AS(signal_stream({SIGINT, SIGKILL}),
                             doctest::Contains("SIGKILL (9): it cannot be caught"),
                             std::invalid_argument);
        CHECK_THROWS_AS(signal_stream(std::initializer_list<int>{}), std::invalid_argument);
        co_return;
    }());
    CHECK(disposition(SIGINT) == sigint_before);  // the refused list installed nothing
    CHECK_THROWS_AS(signal_stream{SIGUSR1}, no_runtime_error);
    CHECK(disposition(SIGUSR1) == default_disposition);
}

TEST_CASE("signals: ctrl_c waits for SIGINT - then puts back the handler that was there") {
    const std::uintptr_t before = disposition(SIGINT);  // the test runner's
    runtime rt(net_test::config_for("epoll"));
    rt.block_on([]() -> task<void> {
        auto interrupted = spawn(ctrl_c());
        co_await yield_now();  // ctrl_c now listens
        ::raise(SIGINT);
        CHECK((co_await std::move(interrupted)).is_ok());
    }());
    CHECK(disposition(SIGINT) == before);
}

TEST_CASE("signals: a signal sent during shutdown_timeout lets its listener finish in time") {
    const std::uintptr_t before = disposition(SIGTERM);  // the test runner's
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        std::atomic<int> seen{0};
        rt.block_on([&]() -> task<void> {
            // Listening before the root returns; the task outlives the root.
            signal_stream term(SIGTERM);
            auto listener = spawn([](signal_stream s, std::atomic<int>& seen) -> task<void> {
                seen = co_await s.next();
            }(std::move(term), seen));
            co_return;
        }());
        std::atomic<bool> shutting_down{false};
        std::thread sender([&] {
            while (!shutting_down)
                std::this_thread::yield();
            send_to_process(SIGTERM);
        });
        shutting_down = true;
        const shutdown_report report = rt.shutdown_timeout(std::chrono::seconds(20));
        sender.join();
        CHECK(seen == SIGTERM);
        CHECK(report.cancelled == 0);
        CHECK(disposition(SIGTERM) == before);
    }
}

TEST_CASE("signals: signals keep coming while a runtime's listeners are cancelled by shutdown") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        // SIGWINCH is ignored by default: the flood may outlive every listener.
        runtime guard_rt(net_test::config_for("epoll"));
        guard_rt.block_on([&]() -> task<void> {
            signal_stream guard(SIGWINCH);  // another runtime's listener, there throughout
            const int pipes_before = open_pipes();
            std::atomic<bool> stop{false};
            std::thread flood([&] {
                while (!stop)
                    signal_process(SIGWINCH);
            });
            {
                runtime rt(net_test::config_for(setup));
                rt.block_on([]() -> task<void> {
                    constexpr int listeners = 8;
                    auto [heard_tx, heard_rx] = sync::make_channel<int>(listeners);
                    for (int i = 0; i < listeners; ++i)
                        static_cast<void>(spawn(
                            [](signal_stream s, sync::channel_sender<int> heard) -> task<void> {
                                co_await heard.send(co_await s.next());
                                while (true)
                                    co_await s.next();
                            }(signal_stream(SIGWINCH), heard_tx)));
                    for (int i = 0; i < listeners; ++i)  // each listener got a signal
                        CHECK(co_await heard_rx.recv() == SIGWINCH);
                }());
                rt.shutdown();  // cancels the listeners as signals arrive
                CHECK(rt.is_quiescent());
            }
            stop = true;
            flood.join();
            CHECK(open_pipes() == pipes_before);  // every listener's pipe closed
            CHECK(co_await guard.next() == SIGWINCH);
            CHECK(disposition(SIGWINCH) != default_disposition);
        }());
        CHECK(disposition(SIGWINCH) == default_disposition);
    }
}
