// Sync primitives shared across threads: plain std::threads and tasks of
// runtimes driven from other threads. The runtimes are built on the main
// thread: building two at once loads plugins concurrently, which TSan reports
// inside the dynamic loader (not in the primitives under test).
#include <functional>
#include <thread>
#include <vector>

#include "sync_test_support.hpp"

using namespace rtkit;
using namespace rtkit::sync;

TEST_CASE("threads: std::threads try_send into a channel a task receives from") {
    constexpr int per_thread = 5000;
    auto [tx, rx] = make_channel<int>(16);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([sender = tx, t]() mutable {
            for (int i = 0; i < per_thread; ++i) {
                int value = t * per_thread + i;
                while (sender.try_send(value) == try_send_result::full)
                    std::this_thread::yield();
            }
        });
    }
    { auto gone = std::move(tx); }
    runtime rt;
    long long sum = rt.block_on([](channel_receiver<int>& rx) -> task<long long> {
        long long sum = 0;
        while (std::optional<int> v = co_await rx.recv())
            sum += *v;
        co_return sum;
    }(rx));
    for (auto& t : threads)
        t.join();
    constexpr long long n = 3LL * per_thread;
    CHECK(sum == n * (n - 1) / 2);
}

TEST_CASE("threads: ping-pong between tasks of two runtimes on two threads") {
    constexpr int rounds = 2000;
    auto [to_b, b_rx] = make_channel<int>(1);
    auto [to_a, a_rx] = make_channel<int>(1);
    runtime first, second;
    std::thread other([&second, rx = std::move(b_rx), tx = std::move(to_a)]() mutable {
        second.block_on([](channel_receiver<int>& rx, channel_sender<int>& tx) -> task<void> {
            while (std::optional<int> v = co_await rx.recv())
                CHECK(co_await tx.send(*v + 1));
        }(rx, tx));
    });
    int last = first.block_on([](channel_sender<int> tx, channel_receiver<int>& rx) -> task<int> {
        int counter = 0;
        for (int i = 0; i < rounds; ++i) {
            CHECK(co_await tx.send(counter));
            counter = *co_await rx.recv();
        }
        co_return counter;  // tx goes with the frame: the other side's loop ends
    }(std::move(to_b), a_rx));
    other.join();
    CHECK(last == rounds);
}

TEST_CASE("threads: senders of two runtimes wait in line on one full channel") {
    constexpr int per_sender = 3000;
    auto [tx, rx] = make_channel<int>(2);
    runtime rt1, rt2, rt;
    auto run_sender = [](runtime& rt, channel_sender<int> tx, int base) {
        rt.block_on([](channel_sender<int> tx, int base) -> task<void> {
            for (int i = 0; i < per_sender; ++i)
                CHECK(co_await tx.send(base + i));
        }(std::move(tx), base));
    };
    std::thread s1(run_sender, std::ref(rt1), tx, 0);
    std::thread s2(run_sender, std::ref(rt2), tx, per_sender);
    { auto gone = std::move(tx); }
    std::vector<int> last_of(2, -1);
    int count = rt.block_on([](channel_receiver<int>& rx, std::vector<int>& last_of) -> task<int> {
        int count = 0;
        while (std::optional<int> v = co_await rx.recv()) {
            int who = *v / per_sender;
            CHECK(*v > last_of[static_cast<std::size_t>(who)]);  // per-sender order holds
            last_of[static_cast<std::size_t>(who)] = *v;
            ++count;
        }
        co_return count;
    }(rx, last_of));
    s1.join();
    s2.join();
    CHECK(count == 2 * per_sender);
}

TEST_CASE("threads: a mutex shared by tasks of two runtimes excludes them") {
    constexpr int per_task = 500;
    sync::mutex<long> counter(0);
    runtime rt1, rt2;
    auto run = [&counter](runtime& rt) {
        rt.block_on([](sync::mutex<long>& counter) -> task<void> {
            for (int i = 0; i < per_task; ++i) {
                auto guard = co_await counter.lock();
                long seen = *guard;
                co_await yield_now();  // hold the lock across a suspension
                *guard = seen + 1;
            }
        }(counter));
    };
    std::thread a(run, std::ref(rt1)), b(run, std::ref(rt2));
    a.join();
    b.join();
    CHECK(counter.get_unsynchronized() == 2 * per_task);
}

TEST_CASE("threads: a semaphore shared by tasks of two runtimes never over-admits") {
    constexpr int per_task = 500;
    semaphore sem(2);
    std::atomic<int> inside{0}, most{0};
    runtime rt1, rt2;
    auto run = [&](runtime& rt) {
        rt.block_on(
            [](semaphore& sem, std::atomic<int>& inside, std::atomic<int>& most) -> task<void> {
                std::vector<join_handle<void>> workers;
                for (int w = 0; w < 2; ++w) {
                    workers.push_back(spawn([](semaphore& sem, std::atomic<int>& inside,
                                               std::atomic<int>& most) -> task<void> {
                        for (int i = 0; i < per_task; ++i) {
                            semaphore_permit p = co_await sem.acquire();
                            int now = ++inside;
                            int seen = most.load();
                            while (now > seen && !most.compare_exchange_weak(seen, now)) {
                            }
                            co_await yield_now();
                            --inside;
                        }
                    }(sem, inside, most)));
                }
                for (auto& w : workers)
                    CHECK((co_await std::move(w)).is_ok());
            }(sem, inside, most));
    };
    std::thread a(run, std::ref(rt1)), b(run, std::ref(rt2));
    a.join();
    b.join();
    CHECK(most.load() <= 2);
    CHECK(sem.available_permits() == 2);
}

TEST_CASE("threads: oneshot and notify fired from a plain thread wake a task") {
    runtime rt;
    rt.block_on([]() -> task<void> {
        auto [tx, rx] = make_oneshot<int>();
        sync::notify ready;
        std::atomic<bool> receiving{false};
        std::thread t([&ready, &receiving, tx = std::move(tx)]() mutable {
            ready.notify_one();
            // Send once the receiver waits, so the send must wake it.
            while (!receiving.load(std::memory_order_acquire))
                std::this_thread::yield();
            CHECK(tx.send(42));
        });
        co_await ready.notified();
        auto receive = rx.operator co_await();
        CHECK(co_await sync::test::flag_when_suspended(receive, receiving) == 42);
        t.join();
    }());
}
