// Task ids: a task's id is the same wherever it is read (its join handle, the
// task itself, a diagnostic) for as long as anything can read it, and no two
// tasks of the process share one, whichever worker admitted them and however
// often their frames and store slots are reused.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"

using namespace rtkit;

namespace {

task<task_id> own_id() {
    co_await yield_now();
    co_return cx::current().id();
}

/// Threads that ran a spawner, and a gate every child waits at, so that all
/// children are alive together.
struct spread {
    std::mutex mutex;
    std::set<std::thread::id> threads;
    std::atomic<bool> gate_open{false};

    std::size_t thread_count() {
        std::lock_guard lock(mutex);
        return threads.size();
    }
};

task<task_id> wait_at_gate(spread& s) {
    while (!s.gate_open.load())
        co_await yield_now();
    co_return cx::current().id();
}

/// Runs on some worker and keeps it busy until a spawner has run on a second
/// worker too, then spawns children there: they are admitted by the worker
/// this spawner runs on.
task<std::vector<join_handle<task_id>>> spawner(spread& s) {
    {
        std::lock_guard lock(s.mutex);
        s.threads.insert(std::this_thread::get_id());
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (s.thread_count() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();  // holds this worker, so another takes the next spawner
    std::vector<join_handle<task_id>> children;
    for (int i = 0; i < 4; ++i)
        children.push_back(spawn(wait_at_gate(s)));
    co_return children;
}

}  // namespace

TEST_CASE("task id: the handle and the task itself see one id - before and after it ends") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([]() -> task<void> {
            auto h = spawn(own_id());
            const task_id before = h.id();
            CHECK(before);
            while (!h.is_finished())
                co_await yield_now();
            CHECK(h.id() == before);  // it left the store; the id stays
            outcome<task_id> seen = co_await std::move(h);
            CHECK(seen.value() == before);
        }());
    });
}

TEST_CASE("task id: tasks that reuse frames and store slots never reuse an id") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        const std::set<std::uint64_t> ids = rt.block_on([]() -> task<std::set<std::uint64_t>> {
            std::set<std::uint64_t> seen;
            for (int i = 0; i < 2000; ++i) {  // one at a time: each reuses the last one's slot
                outcome<task_id> id = co_await spawn(own_id());
                seen.insert(id.value().raw);
            }
            co_return seen;
        }());
        CHECK(ids.size() == 2000);
        CHECK_FALSE(ids.count(0));
    });
}

TEST_CASE("task id: live tasks admitted by different workers have different ids") {
    runtime_config config;
    config.flavor = "multi_thread";
    config.workers = 2;
    runtime rt(config);
    spread s;
    const std::set<std::uint64_t> ids = rt.block_on([&]() -> task<std::set<std::uint64_t>> {
        auto first = spawn(spawner(s));
        auto second = spawn(spawner(s));
        std::vector<join_handle<task_id>> children = (co_await std::move(first)).value();
        std::vector<join_handle<task_id>> more = (co_await std::move(second)).value();
        for (auto& h : more)
            children.push_back(std::move(h));
        REQUIRE(s.thread_count() == 2);
        std::set<std::uint64_t> live;
        for (auto& h : children)
            live.insert(h.id().raw);
        s.gate_open.store(true);
        for (auto& h : children) {
            const task_id id = h.id();
            CHECK((co_await std::move(h)).value() == id);
        }
        co_return live;
    }());
    CHECK(ids.size() == 8);
}

TEST_CASE("task id: tasks spawned from several threads at once all get different ids") {
    runtime_config config;
    config.flavor = "multi_thread";
    config.workers = 2;
    runtime rt(config);
    constexpr int threads = 4, per_thread = 500;
    std::mutex mutex;
    std::set<std::uint64_t> ids;
    std::vector<std::thread> spawners;
    std::atomic<int> done{0};
    rt.block_on([&]() -> task<void> {
        const cx here = cx::current();
        for (int t = 0; t < threads; ++t)
            spawners.emplace_back([&, here] {
                std::vector<join_handle<task_id>> handles;
                for (int i = 0; i < per_thread; ++i)
                    handles.push_back(here.spawn(own_id()));
                std::vector<std::uint64_t> mine;
                for (auto& h : handles)
                    mine.push_back(h.id().raw);
                {
                    std::lock_guard lock(mutex);
                    ids.insert(mine.begin(), mine.end());
                }
                ++done;
            });
        while (done.load() < threads)
            co_await yield_now();
    }());
    for (auto& t : spawners)
        t.join();
    CHECK(ids.size() == std::size_t{threads} * per_thread);
}
