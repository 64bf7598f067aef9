// The lane policy conformance suite: what any policy must do, whatever its
// notion of fairness.
#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {
namespace {

using namespace std::chrono_literals;
using detail::require;

/// Tasks the tests push: the policy sees only their schedulable part.
struct fake_task : schedulable {
    int id = 0;
    lane pushed_to = lane::ready;
};

std::vector<fake_task> make_tasks(int n) {
    std::vector<fake_task> tasks(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        tasks[static_cast<std::size_t>(i)].id = i;
    return tasks;
}

int id_of(schedulable* s) {
    return static_cast<fake_task*>(s)->id;
}

/// Far enough in the future that timed tasks are always due.
const instant far_future = instant(rtkit::duration(INT64_MAX / 2));

void fifo_within_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(100);
    const instant now{};
    require(p->pop(now) == nullptr, "pop() on an empty policy returned a task");
    for (auto& t : tasks)
        p->push(&t, lane::ready, now);
    require(p->size() == 100, "size() is " + std::to_string(p->size()) + " after 100 pushes");
    for (int i = 0; i < 100; ++i) {
        schedulable* s = p->pop(now);
        require(s != nullptr, "pop() returned nothing with ready tasks queued");
        require(id_of(s) == i, "ready lane is not FIFO: popped task " + std::to_string(id_of(s)) +
                                   " where task " + std::to_string(i) + " was next");
        require(p->size() == static_cast<std::size_t>(99 - i), "size() did not follow pops");
    }
    require(p->pop(now) == nullptr, "pop() returned a task after every task was popped");
}

void cancel_before_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(3);
    const instant now{};
    p->push(&tasks[0], lane::ready, now);
    p->push(&tasks[1], lane::ready, now);
    p->push(&tasks[2], lane::cancel, now);
    require(id_of(p->pop(now)) == 2, "a cancel-lane task did not run before ready tasks");
    require(id_of(p->pop(now)) == 0 && id_of(p->pop(now)) == 1,
            "ready tasks came back out of order after a cancel task");
}

void cancel_stream_does_not_starve_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto ready_tasks = make_tasks(10);
    auto cancel_tasks = make_tasks(2);
    const instant now{};
    for (auto& t : ready_tasks)
        p->push(&t, lane::ready, now);
    for (auto& t : cancel_tasks)
        p->push(&t, lane::cancel, now);
    // Every cancel task popped is pushed again at once: an endless cancel stream.
    int ready_run = 0;
    int pops = 0;
    for (; pops < 100'000 && ready_run < 10; ++pops) {
        schedulable* s = p->pop(now);
        require(s != nullptr, "pop() returned nothing with tasks queued");
        const bool is_cancel = s == &cancel_tasks[0] || s == &cancel_tasks[1];
        if (is_cancel)
            p->push(s, lane::cancel, now);
        else
            ++ready_run;
    }
    require(ready_run == 10,
            "a steady stream of cancel tasks starved the ready lane: " + std::to_string(ready_run) +
                " of 10 ready tasks ran in " + std::to_string(pops) + " pops");
}

void timed_not_before_deadline(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(2);
    const instant now = instant(rtkit::duration(1'000'000'000));
    const instant later = now + 100ms, earlier = now + 50ms;
    p->push(&tasks[0], lane::timed, later);
    p->push(&tasks[1], lane::timed, earlier);
    require(p->size() == 2, "size() does not count timed tasks");
    require(p->pop(now) == nullptr, "a timed task ran before its deadline");
    const auto next = p->next_deadline();
    require(next.has_value() && *next == earlier,
            "next_deadline() is not the earliest timed deadline");
    require(p->pop(earlier - 1ns) == nullptr, "a timed task ran 1 ns before its deadline");
    schedulable* first = p->pop(later);
    schedulable* second = p->pop(later);
    require(first && second, "due timed tasks were not returned");
    require(id_of(first) == 1 && id_of(second) == 0, "timed tasks did not run earliest first");
    require(!p->next_deadline().has_value(), "next_deadline() is set with the timed lane empty");
}

void steal_takes_only_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(11);
    const instant now{};
    for (int i = 0; i < 3; ++i)
        p->push(&tasks[i], lane::cancel, now);
    for (int i = 3; i < 6; ++i)
        p->push(&tasks[i], lane::timed, now);
    for (int i = 6; i < 11; ++i)
        p->push(&tasks[i], lane::ready, now);
    schedulable* out[16] = {};
    const std::size_t two = p->steal(out, 2);
    require(two <= 2, "steal(max = 2) gave away " + std::to_string(two) + " tasks");
    std::size_t stolen = two;
    stolen += p->steal(out + two, 16 - two);
    require(stolen >= 1, "steal() gave nothing away although ready tasks were queued");
    std::set<int> seen;
    for (std::size_t i = 0; i < stolen; ++i) {
        require(id_of(out[i]) >= 6, "steal() gave away a cancel or timed task (task " +
                                        std::to_string(id_of(out[i])) + ")");
        seen.insert(id_of(out[i]));
    }
    require(seen.size() == stolen, "steal() gave the same task twice");
    require(p->size() == 11 - stolen, "size() did not drop by the number of stolen tasks");
    while (schedulable* s = p->pop(far_future)) {
        require(seen.insert(id_of(s)).second, "a stolen task was also popped");
    }
    require(seen.size() == 11,
            "tasks were lost: " + std::to_string(seen.size()) + " of 11 came back");
}

void size_counts_every_lane(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(9);
    const instant now{};
    require(p->size() == 0, "size() of a new policy is not 0");
    for (int i = 0; i < 9; ++i)
        p->push(&tasks[i], static_cast<lane>(i % 3), now + rtkit::duration(i));
    require(p->size() == 9, "size() is " + std::to_string(p->size()) + " after 9 pushes");
    std::size_t expected = 9;
    while (p->pop(far_future))
        require(p->size() == --expected, "size() did not follow a pop");
    require(expected == 0, "not every task came back");
}

void random_mix_loses_nothing(const detail::factory<lane_policy>& make) {
    auto p = make();
    constexpr int count = 20'000;
    auto tasks = make_tasks(count);
    std::mt19937 random(7);
    std::uniform_int_distribution<int> pick_lane(0, 2);
    std::uniform_int_distribution<std::int64_t> pick_delay(0, 1000);
    instant now = instant(rtkit::duration(1'000'000));
    std::vector<int> popped(count, 0);
    int next_push = 0;
    std::size_t queued = 0;
    while (next_push < count || queued > 0) {
        if (next_push < count && (random() % 3 != 0 || queued == 0)) {
            fake_task& t = tasks[static_cast<std::size_t>(next_push++)];
            t.pushed_to = static_cast<lane>(pick_lane(random));
            p->push(&t, t.pushed_to, now + rtkit::duration(pick_delay(random)));
            ++queued;
        } else {
            now += rtkit::duration(50);
            if (schedulable* s = p->pop(now)) {
                ++popped[static_cast<std::size_t>(id_of(s))];
                --queued;
            } else {
                const auto next = p->next_deadline();
                require(next.has_value() && *next > now,
                        "pop() returned nothing while a task was eligible to run");
            }
        }
        require(p->size() == queued, "size() drifted from the number of queued tasks");
    }
    for (int i = 0; i < count; ++i)
        if (popped[static_cast<std::size_t>(i)] != 1)
            require(false, "task " + std::to_string(i) + " was popped " +
                               std::to_string(popped[static_cast<std::size_t>(i)]) + " times");
}

}  // namespace

report run_lanes_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<lane_policy>(
        file, options,
        {
            {"fifo_within_ready", &fifo_within_ready},
            {"cancel_before_ready", &cancel_before_ready},
            {"cancel_stream_does_not_starve_ready", &cancel_stream_does_not_starve_ready},
            {"timed_not_before_deadline", &timed_not_before_deadline},
            {"steal_takes_only_ready", &steal_takes_only_ready},
            {"size_counts_every_lane", &size_counts_every_lane},
            {"random_mix_loses_nothing", &random_mix_loses_nothing},
        });
}

}  // namespace rtkit::conformance
