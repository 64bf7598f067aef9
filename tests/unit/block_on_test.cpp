#include <doctest/doctest.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <stdexcept>
#include <thread>
#include <utility>

#include "../support/deadlock_watchdog.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Spawns a task and returns the thread it ran on.
task<std::thread::id> spawned_thread() {
    co_return (co_await spawn(test::thread_of_task())).value();
}

}  // namespace

TEST_CASE("block_on: the caller borrows the worker - spawned tasks run on the calling thread") {
    runtime rt;
    for (int i = 0; i < 3; ++i)
        CHECK(rt.block_on(spawned_thread()) == std::this_thread::get_id());
}

TEST_CASE("block_on: between calls - spawned work goes on on the background thread") {
    runtime rt;
    test::manual_event go;
    std::atomic<bool> done{false};
    std::thread::id ran_on;
    rt.block_on([&]() -> task<void> {
        auto h = spawn(
            [](test::manual_event& go, std::atomic<bool>& d, std::thread::id& where) -> task<void> {
                co_await go.wait();  // fired once the root has returned
                where = std::this_thread::get_id();
                d = true;
                d.notify_all();
            }(go, done, ran_on));
        (void)h;
        co_await test::yield_until([&] { return go.armed(); });
    }());
    go.fire();
    done.wait(false);
    CHECK(ran_on != std::this_thread::get_id());
}

TEST_CASE("block_on: a runtime only driven by block_on starts no thread") {
    const int before = test::baseline_thread_count();
    REQUIRE(before > 0);
    runtime rt;
    for (int i = 0; i < 3; ++i) {
        const std::int64_t sum = rt.block_on([]() -> task<std::int64_t> {
            auto a = spawn(test::value_of(20));
            co_await sleep(2ms);
            co_await yield_now();
            co_return (co_await std::move(a)).value() + 22;
        }());
        CHECK(sum == 42);
        CHECK(test::thread_count() == before);
    }
}

TEST_CASE("block_on: the background thread starts when work outlives the root") {
    const int before = test::baseline_thread_count();
    // Should the root's block_on outlast the sleep (a loaded machine), the
    // task ended inside it and nothing outlived the root: the round is run
    // again with a longer sleep.
    for (auto delay = 5ms;; delay *= 2) {
        REQUIRE(delay < 10s);
        runtime rt;
        std::atomic<bool> done{false};
        rt.block_on([&]() -> task<void> {
            (void)spawn([](duration d, std::atomic<bool>& finished) -> task<void> {
                co_await sleep(d);
                finished = true;
                finished.notify_all();
            }(delay, done));
            co_return;
        }());
        if (done) continue;
        CHECK(test::thread_count() == before + 1);
        done.wait(false);
        rt.shutdown();
        CHECK(test::thread_count() == before);
        break;
    }
}

TEST_CASE("block_on: the root is a registered task while it runs") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        CHECK(rt.is_quiescent());
        bool quiescent_inside = true;
        rt.block_on([&]() -> task<void> {
            quiescent_inside = rt.is_quiescent();
            co_return;
        }());
        CHECK_FALSE(quiescent_inside);
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("block_on: a throwing root rethrows in the caller and hands the worker back") {
    runtime rt;
    std::atomic<bool> finished_later{false};
    CHECK_THROWS_WITH_AS(rt.block_on([&]() -> task<void> {
        auto h = spawn([](std::atomic<bool>& f) -> task<void> {
            co_await sleep(10ms);
            f = true;
            f.notify_all();
        }(finished_later));
        (void)h;
        co_await yield_now();
        throw std::runtime_error("root failed");
    }()),
                         "root failed", std::runtime_error);
    // The worker is back: the background thread finishes the spawned task, and
    // another thread can borrow the worker.
    finished_later.wait(false);
    std::thread other([&] { CHECK(rt.block_on(spawned_thread()) == std::this_thread::get_id()); });
    other.join();
}

namespace {

/// A root parameter whose destructor (run when block_on destroys the root's
/// frame) looks at what it runs in, and may throw.
struct frame_probe {
    runtime* rt = nullptr;
    task_id* seen_task = nullptr;
    std::thread::id* nested_thread = nullptr;
    bool throws = false;
    frame_probe(runtime* r, task_id* t, std::thread::id* n, bool th)
        : rt(r), seen_task(t), nested_thread(n), throws(th) {}
    frame_probe(frame_probe&& o) noexcept
        : rt(std::exchange(o.rt, nullptr)),
          seen_task(o.seen_task),
          nested_thread(o.nested_thread),
          throws(o.throws) {}
    ~frame_probe() noexcept(false) {
        if (!rt) return;  // moved from
        if (seen_task) *seen_task = cx::current().id();
        if (nested_thread) *nested_thread = rt->block_on(spawned_thread());
        if (throws) throw std::runtime_error("probe destructor");
    }
};

#if defined(__SANITIZE_ADDRESS__)
/// Tells LeakSanitizer to ignore what this thread allocates in its scope.
using lost_frames_ignored = __lsan::ScopedDisabler;
#else
struct lost_frames_ignored {};
#endif

task<task_id> root_with_probe(frame_probe, bool fail) {
    if (fail) throw std::logic_error("root body");
    co_return cx::current().id();
}

}  // namespace

TEST_CASE("block_on: the root's frame is destroyed with its context installed") {
    runtime rt;
    task_id in_destructor;
    std::thread::id nested;
    const task_id in_body =
        rt.block_on(root_with_probe(frame_probe(&rt, &in_destructor, &nested, false), false));
    CHECK(in_destructor == in_body);
    // A nested block_on from the destructor drives the worker on this thread.
    CHECK(nested == std::this_thread::get_id());
    CHECK(rt.is_quiescent());
}

TEST_CASE("block_on: a root nested in a task is destroyed with its context too") {
    runtime rt;
    const auto ids = rt.block_on([](runtime& rt) -> task<std::pair<task_id, task_id>> {
        auto inner = co_await spawn([](runtime& rt) -> task<std::pair<task_id, task_id>> {
            task_id in_destructor;
            const task_id in_body = rt.block_on(
                root_with_probe(frame_probe(&rt, &in_destructor, nullptr, false), false));
            co_return std::pair{in_body, in_destructor};
        }(rt));
        co_return inner.value();
    }(rt));
    CHECK(ids.first == ids.second);
}

TEST_CASE("block_on: a throwing frame destructor is caught - the worker returned - and rethrown") {
    runtime rt;
    // GCC does not free a coroutine frame whose destruction throws (see
    // runtime::block_on): these two frames are lost by design, not by rtkit.
    [[maybe_unused]] const lost_frames_ignored by_design;
    CHECK_THROWS_WITH_AS(
        rt.block_on(root_with_probe(frame_probe(&rt, nullptr, nullptr, true), false)),
        "probe destructor", std::runtime_error);
    // When the body threw first, its exception is the one the caller sees.
    CHECK_THROWS_WITH_AS(
        rt.block_on(root_with_probe(frame_probe(&rt, nullptr, nullptr, true), true)), "root body",
        std::logic_error);
    std::thread other([&] { CHECK(rt.block_on(spawned_thread()) == std::this_thread::get_id()); });
    other.join();
    CHECK(rt.block_on(spawned_thread()) == std::this_thread::get_id());
}

TEST_CASE("block_on: nested on the same runtime - three deep - drives the same worker") {
    runtime rt;
    const auto me = std::this_thread::get_id();
    int depth_reached = rt.block_on([&]() -> task<int> {
        CHECK(co_await spawned_thread() == me);
        int inner = rt.block_on([&]() -> task<int> {
            CHECK(co_await spawned_thread() == me);
            int innermost = rt.block_on([&]() -> task<int> {
                CHECK(co_await spawned_thread() == me);
                co_await sleep(1ms);
                co_return 3;
            }());
            co_return innermost;
        }());
        // The outer root still has the worker afterwards.
        CHECK(co_await spawned_thread() == me);
        co_return inner;
    }());
    CHECK(depth_reached == 3);
}

TEST_CASE("block_on: distinct runtimes nest on one thread and restore each other's state") {
    runtime a;
    runtime b;
    const auto me = std::this_thread::get_id();
    int v = a.block_on([&]() -> task<int> {
        int from_b = b.block_on([&]() -> task<int> {
            CHECK(co_await spawned_thread() == me);
            co_await sleep(1ms);
            co_return 20;
        }());
        // Back in a's root: spawning goes to a again.
        CHECK(co_await spawned_thread() == me);
        co_return from_b + 1;
    }());
    CHECK(v == 21);
    CHECK(a.is_quiescent());
    CHECK(b.is_quiescent());
}

TEST_CASE("block_on: nesting runtime A - B - A finishes the inner root") {
    test::run_or_abort_on_deadlock("a.block_on -> b.block_on -> a.block_on", [] {
        runtime a;
        runtime b;
        const auto me = std::this_thread::get_id();
        const int v = a.block_on([&]() -> task<int> {
            co_return b.block_on([&]() -> task<int> {
                // A's worker is held by this thread, two roots up: drive it.
                co_return a.block_on([&]() -> task<int> {
                    co_await sleep(10ms);
                    CHECK(co_await spawned_thread() == me);
                    co_return 7;
                }());
            }());
        }());
        CHECK(v == 7);
        CHECK(a.is_quiescent());
        CHECK(b.is_quiescent());
    });
}

TEST_CASE("block_on: nested in a task - the root joins a task it spawned") {
    test::run_or_abort_on_deadlock("block_on nested in a task, joining", [] {
        runtime rt;
        const auto me = std::this_thread::get_id();
        const std::thread::id ran_on = rt.block_on([&]() -> task<std::thread::id> {
            auto h = spawn([](runtime& r) -> task<std::thread::id> {
                // The worker polls this very task: the nested root must
                // dispatch the worker's other tasks, or this join never ends.
                co_return r.block_on(spawned_thread());
            }(rt));
            co_return (co_await std::move(h)).value();
        }());
        CHECK(ran_on == me);
        CHECK(rt.is_quiescent());
    });
}

TEST_CASE("block_on: what a nested root throws reaches the task that called it") {
    runtime rt;
    const outcome<int> result = rt.block_on([&]() -> task<outcome<int>> {
        co_return co_await spawn([](runtime& r) -> task<int> {
            co_return r.block_on([]() -> task<int> {
                co_await sleep(1ms);
                throw std::runtime_error("nested root failed");
            }());
        }(rt));
    }());
    REQUIRE(result.is_panicked());
    CHECK_THROWS_WITH_AS(std::rethrow_exception(result.exception()), "nested root failed",
                         std::runtime_error);
    CHECK(rt.is_quiescent());
}

TEST_CASE("block_on: nested in a task poll it drives the worker that polls the task") {
    runtime rt;
    int v = rt.block_on([&]() -> task<int> {
        auto h = spawn([](runtime& r) -> task<int> {
            // The worker is busy polling this very task: the nested root drives it.
            co_return r.block_on(test::value_of(5));
        }(rt));
        co_return static_cast<int>((co_await std::move(h)).value());
    }());
    CHECK(v == 5);
}

TEST_CASE("block_on: a root nested in a task gets its timers") {
    runtime rt;
    int v = rt.block_on([&]() -> task<int> {
        auto h = spawn([](runtime& r) -> task<int> {
            co_return r.block_on([]() -> task<int> {
                co_await sleep(2ms);
                co_return 6;
            }());
        }(rt));
        co_return (co_await std::move(h)).value();
    }());
    CHECK(v == 6);
}

TEST_CASE(
    "block_on: a second thread while the worker is on loan polls directly - without deadlock") {
    runtime rt;
    test::manual_event release_main;
    std::atomic<bool> other_done{false};
    std::thread::id other_task_thread;
    rt.block_on([&]() -> task<void> {
        std::thread other([&] {
            // The main thread holds the worker: this call cannot borrow it. Its
            // spawned task runs on the main thread's loan.
            other_task_thread = rt.block_on(spawned_thread());
            other_done = true;
            release_main.fire();
        });
        co_await release_main.wait();
        other.join();
    }());
    CHECK(other_done);
    CHECK(other_task_thread == std::this_thread::get_id());
}

TEST_CASE("block_on: from a task on the background thread it drives the worker there") {
    runtime rt;
    test::manual_event go;
    std::atomic<int> result{0};
    std::thread::id ran_on;
    rt.block_on([&]() -> task<void> {
        auto h = spawn([](runtime& r, test::manual_event& go, std::atomic<int>& out,
                          std::thread::id& where) -> task<void> {
            co_await go.wait();  // fired once the root has returned
            where = std::this_thread::get_id();
            out = r.block_on(test::value_of(11)) == 11 ? 1 : 2;
            out.notify_all();
        }(rt, go, result, ran_on));
        (void)h;
        co_await test::yield_until([&] { return go.armed(); });
    }());
    go.fire();
    result.wait(0);
    CHECK(result == 1);
    CHECK(ran_on != std::this_thread::get_id());
}

TEST_CASE("block_on: the post-root drain is bounded - so a self-waking task cannot hold it") {
    runtime rt;
    std::atomic<bool> stop{false};
    std::atomic<long> spins{0};
    rt.block_on([&]() -> task<void> {
        auto h = spawn([](std::atomic<bool>& s, std::atomic<long>& n) -> task<void> {
            while (!s) {
                ++n;
                n.notify_all();
                co_await yield_now();
            }
        }(stop, spins));
        (void)h;
        co_return;
    }());
    // block_on returned although the task is still runnable; it keeps running.
    const long seen = spins.load();
    spins.wait(seen);
    CHECK(spins.load() > seen);
    stop = true;
}

TEST_CASE("block_on: many calls in a row with ready roots") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::int64_t sum = 0;
        for (std::int64_t i = 0; i < 10'000; ++i)
            sum += rt.block_on(test::value_of(i));
        CHECK(sum == 10'000LL * 9'999 / 2);
    });
}

TEST_CASE("block_on: concurrent callers from several threads all complete") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        std::atomic<int> done{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 200; ++i) {
                    auto id = rt.block_on(spawned_thread());
                    (void)id;
                }
                ++done;
            });
        for (auto& t : threads)
            t.join();
        CHECK(done == 4);
    });
}
