// The three-lane policy (plugins/lanes_three_lane, loaded from its plugin
// file) against a model of the fairness its README states, over random
// sequences of push, pop and steal on the cancel, ready and deferred lanes:
//
// - each lane is FIFO, and pop returns nothing only when all are empty;
// - a cancel task runs first, except that after cancel_streak_limit
//   consecutive cancel pops a waiting ready or deferred task runs, and the
//   streak restarts (only such a task ends it); with nothing else waiting,
//   cancel tasks keep running past the limit;
// - then a ready task, except that after ready_streak_limit consecutive ready
//   pops while a deferred task waits, that deferred task runs, and the ready
//   streak restarts;
// - steal gives away the oldest cancel tasks, then the oldest ready tasks,
//   then the oldest deferred ones;
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
    /// Where a task is pushed: the two lanes of lane_policy::push, or
    /// lanes_deferred::push_deferred.
    enum class target { cancel, ready, deferred };

    fairness_model(std::int64_t cancel_streak_limit, std::int64_t ready_streak_limit)
        : cancel_limit_(cancel_streak_limit), ready_limit_(ready_streak_limit) {}

    void push(int id, target where) {
        (where == target::cancel  ? cancel_
         : where == target::ready ? ready_
                                  : deferred_)
            .push_back(id);
    }
    /// The id pop() must return, or -1 for none.
    int pop() {
        const bool others_wait = !ready_.empty() || !deferred_.empty();
        if (!cancel_.empty() && (cancel_streak_ < cancel_limit_ || !others_wait)) {
            ++cancel_streak_;
            return take(cancel_);
        }
        if (!others_wait) return -1;  // nothing ran: a streak goes on
        cancel_streak_ = 0;
        if (!ready_.empty() && (ready_streak_ < ready_limit_ || deferred_.empty())) {
            ready_streak_ = deferred_.empty() ? 0 : ready_streak_ + 1;
            return take(ready_);
        }
        ready_streak_ = 0;
        return take(deferred_);
    }
    /// The ids steal(max) must give away: the cancel lane's, then the ready
    /// lane's, then the deferred lane's, oldest first.
    std::vector<int> steal(std::size_t max) {
        std::vector<int> stolen;
        for (std::deque<int>* lane : {&cancel_, &ready_, &deferred_})
            while (stolen.size() < max && !lane->empty())
                stolen.push_back(take(*lane));
        return stolen;
    }
    std::size_t size() const { return cancel_.size() + ready_.size() + deferred_.size(); }

  private:
    static int take(std::deque<int>& lane) {
        const int id = lane.front();
        lane.pop_front();
        return id;
    }
    std::int64_t cancel_limit_;
    std::int64_t ready_limit_;
    std::int64_t cancel_streak_ = 0;  ///< consecutive cancel pops
    std::int64_t ready_streak_ = 0;   ///< consecutive ready pops while a deferred task waited
    std::deque<int> cancel_, ready_, deferred_;
};

/// A task the policy queues, and the id the model knows it by.
/// One random sequence of operations on a new policy, checked step by step.
void policy_matches_model() {
    const std::int64_t cancel_limit = *rc::gen::inRange<std::int64_t>(1, 6);
    const std::int64_t ready_limit = *rc::gen::inRange<std::int64_t>(1, 6);
    const auto policy = builtin_plugin<rtkit::lane_policy>(
        "three_lane", {{"cancel_streak_limit", cancel_limit}, {"ready_streak_limit", ready_limit}});
    auto* deferred =
        static_cast<rtkit::lanes_deferred*>(policy->query_interface(rtkit::lanes_deferred_name));
    RC_ASSERT(deferred != nullptr);
    fairness_model model(cancel_limit, ready_limit);
    std::deque<model_task> tasks;  // stable addresses; each pushed once
    std::vector<rtkit::schedulable*> stolen(8);

    const int steps = *rc::gen::inRange(1, 200);
    for (int step = 0; step < steps; ++step) {
        switch (*rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}})) {
            case 0: {
                model_task& task = tasks.emplace_back();
                task.id = static_cast<int>(tasks.size()) - 1;
                using target = fairness_model::target;
                const target where =
                    *rc::gen::element(target::cancel, target::ready, target::deferred);
                if (where == target::deferred)
                    deferred->push_deferred(&task);
                else
                    policy->push(
                        &task, where == target::cancel ? rtkit::lane::cancel : rtkit::lane::ready);
                model.push(task.id, where);
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

TEST_CASE("three-lane policy - cancel ready and deferred lanes keep the stated fairness") {
    CHECK(rc::check(policy_matches_model));
}
