// The three-lane policy (plugins/lanes_three_lane, loaded from its plugin
// file) against a model of the fairness its README states, over random
// sequences of push, pop and steal on the cancel and ready lanes:
//
// - each lane is FIFO, and pop returns nothing only when both are empty;
// - a cancel task runs first, except that after cancel_streak_limit
//   consecutive cancel pops a waiting ready task runs, and the streak restarts
//   (only a ready task ends it); with no ready task waiting, cancel tasks keep
//   running past the limit;
// - steal gives away the oldest cancel tasks, then the oldest ready tasks;
// - size() counts what is queued.
#include <deque>
#include <vector>

#include "property_support.hpp"
#include "rtkit/lane_policy.hpp"

using namespace property_test;

namespace {

/// What the policy promises, written plainly.
class fairness_model {
  public:
    explicit fairness_model(std::int64_t cancel_streak_limit) : limit_(cancel_streak_limit) {}

    void push(int id, rtkit::lane which) {
        (which == rtkit::lane::cancel ? cancel_ : ready_).push_back(id);
    }
    /// The id pop() must return, or -1 for none.
    int pop() {
        const bool cancel_turn = !cancel_.empty() && (streak_ < limit_ || ready_.empty());
        if (cancel_turn) {
            ++streak_;
            return take(cancel_);
        }
        if (ready_.empty()) return -1;  // nothing ran: a streak goes on
        streak_ = 0;
        return take(ready_);
    }
    /// The ids steal(max) must give away: the cancel lane's, then the ready
    /// lane's, oldest first.
    std::vector<int> steal(std::size_t max) {
        std::vector<int> stolen;
        while (stolen.size() < max && !cancel_.empty())
            stolen.push_back(take(cancel_));
        while (stolen.size() < max && !ready_.empty())
            stolen.push_back(take(ready_));
        return stolen;
    }
    std::size_t size() const { return cancel_.size() + ready_.size(); }

  private:
    static int take(std::deque<int>& lane) {
        const int id = lane.front();
        lane.pop_front();
        return id;
    }
    std::int64_t limit_;
    std::int64_t streak_ = 0;  ///< consecutive cancel pops
    std::deque<int> cancel_, ready_;
};

/// A task the policy queues, and the id the model knows it by.
struct model_task : rtkit::schedulable {
    int id = 0;
};

int id_of(rtkit::schedulable* task) {
    return task ? static_cast<model_task*>(task)->id : -1;
}

/// One random sequence of operations on a new policy, checked step by step.
void policy_matches_model() {
    const std::int64_t limit = *rc::gen::inRange<std::int64_t>(1, 6);
    const auto policy =
        builtin_plugin<rtkit::lane_policy>("three_lane", {{"cancel_streak_limit", limit}});
    fairness_model model(limit);
    std::deque<model_task> tasks;  // stable addresses; each pushed once
    std::vector<rtkit::schedulable*> stolen(8);

    const int steps = *rc::gen::inRange(1, 200);
    for (int step = 0; step < steps; ++step) {
        switch (*rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}})) {
            case 0: {
                model_task& task = tasks.emplace_back();
                task.id = static_cast<int>(tasks.size()) - 1;
                const rtkit::lane which =
                    *rc::gen::element(rtkit::lane::cancel, rtkit::lane::ready);
                policy->push(&task, which);
                model.push(task.id, which);
                break;
            }
            case 1:
                RC_ASSERT(id_of(policy->pop()) == model.pop());
                break;
            default: {
                const std::size_t max = *rc::gen::inRange<std::size_t>(0, stolen.size() + 1);
                const std::size_t given = policy->steal(stolen.data(), max);
                std::vector<int> ids;
                for (std::size_t i = 0; i < given; ++i)
                    ids.push_back(id_of(stolen[i]));
                RC_ASSERT(ids == model.steal(max));
                break;
            }
        }
        RC_ASSERT(policy->size() == model.size());
    }
}

}  // namespace

TEST_CASE("three-lane policy - cancel and ready lanes keep the stated fairness") {
    CHECK(rc::check(policy_matches_model));
}
