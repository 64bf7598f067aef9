// The lane policy conformance suite: what any policy must do, whatever its
// notion of fairness.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {
namespace {

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

void empty_policy_pops_nothing(const detail::factory<lane_policy>& make) {
    auto p = make();
    require(p->size() == 0, "size() of a new policy is not 0");
    require(p->pop() == nullptr, "pop() on an empty policy returned a task");
    schedulable* out[4] = {};
    require(p->steal(out, 4) == 0, "steal() on an empty policy gave tasks away");
}

void cancel_before_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(3);
    p->push(&tasks[0], lane::ready);
    p->push(&tasks[1], lane::ready);
    p->push(&tasks[2], lane::cancel);
    require(p->size() == 3, "size() is " + std::to_string(p->size()) + " after 3 pushes");
    require(id_of(p->pop()) == 2, "a cancel-lane task did not run before ready tasks");
    std::set<int> rest{id_of(p->pop()), id_of(p->pop())};
    require(rest == std::set<int>{0, 1}, "the ready tasks did not come back after the cancel task");
    require(p->pop() == nullptr && p->size() == 0, "tasks came back that were never pushed");
}

void cancel_stream_does_not_starve_ready(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto ready_tasks = make_tasks(10);
    auto cancel_tasks = make_tasks(2);
    for (auto& t : ready_tasks)
        p->push(&t, lane::ready);
    for (auto& t : cancel_tasks)
        p->push(&t, lane::cancel);
    // Every cancel task popped is pushed again at once: an endless cancel stream.
    int ready_run = 0;
    int pops = 0;
    for (; pops < 100'000 && ready_run < 10; ++pops) {
        schedulable* s = p->pop();
        require(s != nullptr, "pop() returned nothing with tasks queued");
        const bool is_cancel = s == &cancel_tasks[0] || s == &cancel_tasks[1];
        if (is_cancel)
            p->push(s, lane::cancel);
        else
            ++ready_run;
    }
    require(ready_run == 10,
            "a steady stream of cancel tasks starved the ready lane: " + std::to_string(ready_run) +
                " of 10 ready tasks ran in " + std::to_string(pops) + " pops");
}

void steal_gives_queued_tasks_once(const detail::factory<lane_policy>& make) {
    auto p = make();
    auto tasks = make_tasks(11);
    for (int i = 0; i < 3; ++i)
        p->push(&tasks[i], lane::cancel);
    for (int i = 3; i < 11; ++i)
        p->push(&tasks[i], lane::ready);
    schedulable* out[16] = {};
    const std::size_t two = p->steal(out, 2);
    require(two <= 2, "steal(max = 2) gave away " + std::to_string(two) + " tasks");
    std::size_t stolen = two;
    stolen += p->steal(out + two, 16 - two);
    require(stolen >= 1, "steal() gave nothing away although tasks were queued");
    std::set<int> seen;
    for (std::size_t i = 0; i < stolen; ++i)
        seen.insert(id_of(out[i]));
    require(seen.size() == stolen, "steal() gave the same task twice");
    require(p->size() == 11 - stolen, "size() did not drop by the number of stolen tasks");
    while (schedulable* s = p->pop()) {
        require(seen.insert(id_of(s)).second, "a stolen task was also popped");
    }
    require(seen.size() == 11,
            "tasks were lost: " + std::to_string(seen.size()) + " of 11 came back");
}

void random_mix_loses_nothing(const detail::factory<lane_policy>& make) {
    auto p = make();
    constexpr int count = 20'000;
    auto tasks = make_tasks(count);
    std::mt19937 random(7);
    std::vector<int> returned(count, 0);
    int next_push = 0;
    std::size_t queued = 0;
    schedulable* out[8];
    auto note_returned = [&](schedulable* s) {
        const int id = id_of(s);
        ++returned[static_cast<std::size_t>(id)];
        --queued;
    };
    while (next_push < count || queued > 0) {
        const unsigned action = random() % 8;
        if (next_push < count && (action < 4 || queued == 0)) {
            fake_task& t = tasks[static_cast<std::size_t>(next_push)];
            t.pushed_to = random() % 4 == 0 ? lane::cancel : lane::ready;
            p->push(&t, t.pushed_to);
            ++next_push;
            ++queued;
        } else if (action == 5) {
            const std::size_t n = p->steal(out, 1 + random() % 8);
            for (std::size_t i = 0; i < n; ++i)
                note_returned(out[i]);
        } else if (schedulable* s = p->pop()) {
            note_returned(s);
        } else {
            require(queued == 0, "pop() returned nothing with tasks queued");
        }
        require(p->size() == queued, "size() drifted from the number of queued tasks");
    }
    for (int i = 0; i < count; ++i)
        if (returned[static_cast<std::size_t>(i)] != 1)
            require(false, "task " + std::to_string(i) + " came back " +
                               std::to_string(returned[static_cast<std::size_t>(i)]) + " times");
}

}  // namespace

namespace detail {

const std::vector<test_case<lane_policy>>& lanes_cases() {
    static const std::vector<test_case<lane_policy>> cases{
        {"empty_policy_pops_nothing", &empty_policy_pops_nothing},
        {"cancel_before_ready", &cancel_before_ready},
        {"cancel_stream_does_not_starve_ready", &cancel_stream_does_not_starve_ready},
        {"steal_gives_queued_tasks_once", &steal_gives_queued_tasks_once},
        {"random_mix_loses_nothing", &random_mix_loses_nothing},
    };
    return cases;
}

}  // namespace detail

report run_lanes_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<lane_policy>(file, options, detail::lanes_cases());
}

}  // namespace rtkit::conformance
