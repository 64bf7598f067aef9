#include <doctest/doctest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;

namespace {

task<std::int64_t> index_task(std::int64_t i) {
    co_return i;
}

task<std::int64_t> spawn_tree(int depth) {
    if (depth == 0) co_return 1;
    auto left = spawn(spawn_tree(depth - 1));
    auto right = spawn(spawn_tree(depth - 1));
    std::int64_t l = (co_await std::move(left)).value();
    std::int64_t r = (co_await std::move(right)).value();
    co_return l + r;
}

}  // namespace

TEST_CASE("spawn/join: 100 -000 tasks joined in spawn order") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        constexpr std::int64_t n = 100'000;
        std::int64_t sum = rt.block_on([]() -> task<std::int64_t> {
            std::vector<join_handle<std::int64_t>> handles;
            handles.reserve(n);
            for (std::int64_t i = 0; i < n; ++i)
                handles.push_back(spawn(index_task(i)));
            std::int64_t total = 0;
            for (auto& h : handles)
                total += (co_await std::move(h)).value();
            co_return total;
        }());
        CHECK(sum == n * (n - 1) / 2);
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("spawn/join: tasks spawn tasks") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        CHECK(rt.block_on(spawn_tree(10)) == 1024);
    });
}

TEST_CASE("spawn/join: a task that throws ends panicked and the runtime keeps running") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([]() -> task<void> {
            auto bad = spawn([]() -> task<int> {
                co_await yield_now();
                throw std::runtime_error("boom");
            }());
            auto good = spawn(index_task(7));
            outcome<int> o = co_await std::move(bad);
            REQUIRE(o.is_panicked());
            CHECK_THROWS_WITH_AS(std::rethrow_exception(o.exception()), "boom", std::runtime_error);
            CHECK((co_await std::move(good)).value() == 7);
        }());
        // And again, on the same runtime.
        CHECK(rt.block_on(index_task(3)) == 3);
    });
}

TEST_CASE("spawn/join: inline awaiting a task returns its value or rethrows") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        int v = rt.block_on([]() -> task<int> {
            int a = static_cast<int>(co_await index_task(5));
            try {
                co_await []() -> task<void> {
                    co_await yield_now();
                    throw std::logic_error("inner");
                }();
            } catch (const std::logic_error& e) {
                a += 10;
            }
            co_return a;
        }());
        CHECK(v == 15);
    });
}

TEST_CASE(
    "spawn/join: a join handle can be awaited from another runtime's root on another thread") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        runtime other;
        rt.block_on([&]() -> task<void> {
            auto h = spawn([]() -> task<int> {
                co_await sleep(std::chrono::milliseconds(5));
                co_return 9;
            }());
            int got = 0;
            std::thread t([&] {
                got = other.block_on(
                    [&]() -> task<int> { co_return (co_await std::move(h)).value(); }());
            });
            // Keep this worker turning so the spawned task can finish.
            co_await sleep(std::chrono::milliseconds(30));
            t.join();
            CHECK(got == 9);
        }());
    });
}

TEST_CASE("spawn/join: spawn outside a task is refused with a clear error") {
    CHECK_THROWS_AS((void)spawn(index_task(1)), no_runtime_error);
}

TEST_CASE("yield_now: outside a task it is refused - it would never be resumed") {
    // A coroutine of the caller's own awaits it on a plain thread: nothing
    // of a runtime polls it, so the error comes where it awaits.
    struct detached {
        struct promise_type {
            std::exception_ptr failure;
            detached get_return_object() noexcept { return {}; }
            std::suspend_never initial_suspend() noexcept { return {}; }
            std::suspend_never final_suspend() noexcept { return {}; }
            void return_void() noexcept {}
            void unhandled_exception() noexcept { failure = std::current_exception(); }
        };
    };
    bool refused = false;
    [](bool& refused) -> detached {
        try {
            co_await yield_now();
        } catch (const no_runtime_error&) {
            refused = true;
        }
    }(refused);
    CHECK(refused);
    // A task on this thread afterwards yields and finishes as usual.
    CHECK(runtime().block_on([]() -> task<int> {
        co_await yield_now();
        co_return 7;
    }()) == 7);
}

TEST_CASE("join: awaiting a handle consumes it and releases the finished task's frame") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> alive{0};
        rt.block_on([&]() -> task<void> {
            auto h = spawn([](test::counted parameter) -> task<int> {
                co_await yield_now();
                co_return parameter.alive ? 1 : 0;
            }(test::counted(alive)));
            CHECK(alive == 1);
            CHECK((co_await std::move(h)).value() == 1);
            // The outcome was taken: the handle is empty and the frame (with its
            // parameter) is gone, not kept until the handle is destroyed.
            CHECK_FALSE(h.valid());
            CHECK(alive == 0);
        }());
    });
}

#ifdef RTKIT_CHAOS
TEST_CASE("join: the frame is gone when the await returns - while the completing worker pauses") {
    // A multi_thread root joins on its own thread: it may resume the moment
    // the worker that completed the task wakes it. The worker pauses right
    // after that wake; the frame must not wait for it.
    using detail::chaos::site;
    runtime rt(test::multi_thread(1));
    test::manual_event gate;
    test::signal_flag checked;
    std::atomic<bool> armed{false};
    test::chaos_hook hold([&](site s) {
        if (s == site::joiner_woken && armed.load()) checked.wait_for(std::chrono::seconds(10));
    });
    std::atomic<int> alive{0};
    rt.block_on([&]() -> task<void> {
        auto h = spawn([](test::counted parameter, test::manual_event& g) -> task<int> {
            co_await g.wait();
            co_return parameter.alive ? 1 : 0;
        }(test::counted(alive), gate));
        // The task completes only once this root waits for it as its joiner.
        std::thread opener([&, record = h.record()] {
            while (!(record->state.load() & detail::task_state::join_waker))
                std::this_thread::yield();
            armed = true;
            gate.fire();
        });
        CHECK((co_await std::move(h)).value() == 1);
        CHECK(alive == 0);
        checked.set();
        opener.join();
    }());
}

TEST_CASE(
    "spawn/join: a join re-installed while the task completes - the old joiner is released once") {
    // A joiner that went away (cancelled while it awaited) stays in the task's
    // extras with its reference. A new join replaces it while the task
    // completes: the completion takes that joiner out (and wakes it, dropping
    // its reference) while the new join is between reading it and replacing
    // it. Whoever takes it out owns its reference: if both released it, the
    // old joiner's frame would be freed twice (AddressSanitizer).
    using detail::chaos::site;
    runtime rt(test::multi_thread(1));
    test::manual_event gate;
    test::signal_flag completion_paused, join_paused, completion_done;
    std::atomic<bool> armed{false};
    std::atomic<std::thread::id> completing_thread{};
    test::chaos_hook hold([&](site s) {
        if (!armed.load()) return;
        if (s == site::completing_with_joiner && !completion_paused.is_set()) {
            completing_thread = std::this_thread::get_id();
            completion_paused.set();
            join_paused.wait_for(std::chrono::seconds(10));
        } else if (s == site::joiner_installing && completion_paused.is_set() &&
                   !join_paused.is_set()) {
            join_paused.set();
            completion_done.wait_for(std::chrono::seconds(10));
        } else if (s == site::lanes_popping && join_paused.is_set() &&
                   completing_thread.load() == std::this_thread::get_id()) {
            completion_done.set();  // the worker is back in its loop: the completion is over
        }
    });
    outcome<int> joined = rt.block_on([&]() -> task<outcome<int>> {
        join_handle<int> h = spawn([](test::manual_event& g) -> task<int> {
            co_await g.wait();
            co_return 7;
        }(gate));
        auto first_joiner =
            spawn([](join_handle<int>& h) -> task<void> { (void)co_await std::move(h); }(h));
        while (!(h.record()->state.load() & detail::task_state::join_waker))
            co_await yield_now();
        first_joiner.cancel();
        CHECK((co_await std::move(first_joiner)).is_cancelled());
        REQUIRE(h.valid());  // a cancelled await leaves the handle as it was
        armed = true;
        gate.fire();
        REQUIRE(completion_paused.wait_for(std::chrono::seconds(10)));
        co_return co_await std::move(h);
    }());
    CHECK(join_paused.is_set());
    CHECK(completion_done.is_set());
    CHECK(joined.value() == 7);
}
#endif
