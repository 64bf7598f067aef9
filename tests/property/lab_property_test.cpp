// The lab policy (plugins/lanes_lab, loaded from its plugin file) over
// random sequences of push, pop and steal on two instances with the same
// seed and window: both give the same entries in the same order (the picks
// depend on the seed and the calls alone), each pop takes one of the
// `window` queued entries pushed earliest, and every entry comes back once.
#include <algorithm>
#include <deque>
#include <set>
#include <vector>

#include "property_support.hpp"
#include "rtkit/lane_policy.hpp"

using namespace property_test;

namespace {

void lab_is_replayable_and_keeps_its_window() {
    const std::int64_t seed = *rc::gen::inRange<std::int64_t>(0, 1000);
    const std::int64_t window = *rc::gen::inRange<std::int64_t>(1, 10);
    const rtkit::option_table options{{"seed", seed}, {"window", window}};
    const auto first = builtin_plugin<rtkit::lane_policy>("lab", options);
    const auto again = builtin_plugin<rtkit::lane_policy>("lab", options);
    // The two instances get twin tasks, so each keeps its own links.
    std::deque<model_task> tasks, twins;
    std::set<int> queued;  // ids, which are push order
    std::vector<rtkit::schedulable*> out(8), twin_out(8);
    const int steps = *rc::gen::inRange(1, 300);
    for (int step = 0; step < steps; ++step) {
        switch (*rc::gen::weightedElement<int>({{4, 0}, {3, 1}, {1, 2}})) {
            case 0: {
                const auto which = *rc::gen::element(rtkit::lane::cancel, rtkit::lane::ready);
                const int id = static_cast<int>(tasks.size());
                tasks.emplace_back().id = id;
                twins.emplace_back().id = id;
                first->push(&tasks.back(), which);
                again->push(&twins.back(), which);
                queued.insert(id);
                break;
            }
            case 1: {
                const int id = id_of(first->pop());
                RC_ASSERT(id_of(again->pop()) == id);
                if (queued.empty()) {
                    RC_ASSERT(id == -1);
                    break;
                }
                RC_ASSERT(queued.count(id) == 1);
                const auto rank = std::distance(queued.begin(), queued.find(id));
                RC_ASSERT(rank < window);
                queued.erase(id);
                break;
            }
            default: {
                const std::size_t max = *rc::gen::inRange<std::size_t>(0, out.size() + 1);
                const std::size_t given = first->steal(out.data(), max);
                RC_ASSERT(again->steal(twin_out.data(), max) == given);
                RC_ASSERT(given == std::min(max, queued.size()));
                for (std::size_t i = 0; i < given; ++i) {
                    RC_ASSERT(id_of(out[i]) == id_of(twin_out[i]));
                    RC_ASSERT(queued.erase(id_of(out[i])) == 1);
                }
                break;
            }
        }
        RC_ASSERT(first->size() == queued.size());
    }
}

}  // namespace

TEST_CASE("lab policy - the same seed and calls give the same picks - within the window") {
    CHECK(rc::check(lab_is_replayable_and_keeps_its_window));
}
