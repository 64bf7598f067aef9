// The fifo policy (plugins/lanes_fifo, loaded from its plugin file) against
// its model, one queue for both lanes, over random sequences of push, pop
// and steal: pop gives the oldest entry whatever its lane, steal the oldest
// ones, and size() counts what is queued.
#include <deque>
#include <vector>

#include "property_support.hpp"
#include "rtkit/lane_policy.hpp"

using namespace property_test;

namespace {

void fifo_matches_model() {
    const auto policy = builtin_plugin<rtkit::lane_policy>("fifo", {});
    std::deque<int> model;
    std::deque<model_task> tasks;  // stable addresses; each pushed once
    std::vector<rtkit::schedulable*> stolen(8);
    const int steps = *rc::gen::inRange(1, 200);
    for (int step = 0; step < steps; ++step) {
        switch (*rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}})) {
            case 0: {
                model_task& task = tasks.emplace_back();
                task.id = static_cast<int>(tasks.size()) - 1;
                policy->push(&task, *rc::gen::element(rtkit::lane::cancel, rtkit::lane::ready));
                model.push_back(task.id);
                break;
            }
            case 1: {
                const int expected = model.empty() ? -1 : model.front();
                if (!model.empty()) model.pop_front();
                RC_ASSERT(id_of(policy->pop()) == expected);
                break;
            }
            default: {
                const std::size_t max = *rc::gen::inRange<std::size_t>(0, stolen.size() + 1);
                const std::size_t given = policy->steal(stolen.data(), max);
                RC_ASSERT(given == std::min(max, model.size()));
                for (std::size_t i = 0; i < given; ++i) {
                    RC_ASSERT(id_of(stolen[i]) == model.front());
                    model.pop_front();
                }
                break;
            }
        }
        RC_ASSERT(policy->size() == model.size());
    }
}

}  // namespace

TEST_CASE("fifo policy - one queue for both lanes - oldest first for pop and steal") {
    CHECK(rc::check(fifo_matches_model));
}
