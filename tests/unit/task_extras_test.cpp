#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "rtkit/detail/task_extras.hpp"
#include "test_support.hpp"

using namespace rtkit;

// A task's region and its extras share one header word: the extras, made on
// first use by whichever thread needs them, take the region over. Two threads
// that need them at once (the task's worker arming a timeout, another thread
// cancelling it) must end with one set of extras that still knows the region.

TEST_CASE("task extras: two threads making them at once share one - and the region stays") {
    detail::region_node region;
    for (int round = 0; round < 2000; ++round) {
        auto frame = test::value_of(0).release();
        detail::task_header& task = frame.promise();
        task.set_region(&region);

        std::atomic<int> ready{0};
        detail::task_extras* seen[2] = {nullptr, nullptr};
        auto make = [&](int who) {
            ready.fetch_add(1);
            while (ready.load() < 2) {
            }
            seen[who] = &task.get_extras();
        };
        std::thread other(make, 1);
        make(0);
        other.join();

        REQUIRE(seen[0] == seen[1]);
        REQUIRE(task.extras() == seen[0]);
        REQUIRE(task.region() == &region);
        task.destroy_frame();  // frees the frame and the extras
    }
}
