// The lane policy conformance suite: what any policy must do (every entry
// comes back exactly once, a steal hands over a batch, ready entries are not
// starved, and with rtkit.lanes_deferred.v1 neither are deferred ones), and
// what the policy itself states through rtkit.lanes_fairness.v1 and
// rtkit.lanes_deferred.v1 (rtkit/lane_policy.hpp): its bound on how long an
// entry waits, or, for a random policy, that its picks are uniform over the
// entries it says.
#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <set>
#include <string>
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
    bool deferred = false;  ///< pushed through lanes_deferred::push_deferred
    bool queued = false;
    std::uint64_t pops_at_push = 0;  ///< pops of the policy before this push
    std::size_t bound = 0;           ///< the policy's max_pops_before at this push
    std::uint64_t pushed_as = 0;     ///< push number
};

std::deque<fake_task> make_tasks(int n) {
    std::deque<fake_task> tasks(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        tasks[static_cast<std::size_t>(i)].id = i;
    return tasks;
}

fake_task& task_of(schedulable* s) {
    return *static_cast<fake_task*>(s);
}

std::string text(std::uint64_t n) {
    return std::to_string(n);
}

/// The policy's rtkit.lanes_fairness.v1, or nullptr.
const lanes_fairness* fairness_of(lane_policy& p) {
    return static_cast<const lanes_fairness*>(p.query_interface(lanes_fairness_name));
}

/// The policy's rtkit.lanes_deferred.v1, or nullptr.
lanes_deferred* deferred_of(lane_policy& p) {
    return static_cast<lanes_deferred*>(p.query_interface(lanes_deferred_name));
}

/// Pushes `t` as the kernel would for `which` (cancel, ready), or as deferred
/// when `deferred` is set and the policy takes deferred entries.
void push_as(lane_policy& p, lanes_deferred* d, fake_task& t, lane which, bool deferred) {
    t.pushed_to = which;
    t.deferred = deferred && d && which == lane::ready;
    if (t.deferred)
        d->push_deferred(&t);
    else
        p.push(&t, which);
}

void empty_policy_pops_nothing(const detail::factory<lane_policy>& make) {
    auto p = make();
    require(p->size() == 0, "size() of a new policy is not 0");
    require(p->pop() == nullptr, "pop() on an empty policy returned a task");
    schedulable* out[4] = {};
    require(p->steal(out, 4) == 0, "steal() on an empty policy gave tasks away");
}

void every_entry_comes_back_exactly_once(const detail::factory<lane_policy>& make) {
    auto p = make();
    lanes_deferred* const d = deferred_of(*p);
    constexpr int count = 20'000;
    auto tasks = make_tasks(count);
    std::mt19937 random(7);
    std::vector<int> returned(count, 0);
    int next_push = 0;
    std::size_t queued = 0;
    schedulable* out[8];
    auto note_returned = [&](schedulable* s) {
        ++returned[static_cast<std::size_t>(task_of(s).id)];
        --queued;
    };
    while (next_push < count || queued > 0) {
        const unsigned action = random() % 8;
        if (next_push < count && (action < 4 || queued == 0)) {
            fake_task& t = tasks[static_cast<std::size_t>(next_push)];
            const unsigned kind = random() % 4;
            push_as(*p, d, t, kind == 0 ? lane::cancel : lane::ready, kind == 1);
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
            require(false,
                    "task " + text(static_cast<std::uint64_t>(i)) + " came back " +
                        text(static_cast<std::uint64_t>(returned[static_cast<std::size_t>(i)])) +
                        " times");
}

void steal_hands_over_a_batch(const detail::factory<lane_policy>& make) {
    auto p = make();
    constexpr int count = 64;
    auto tasks = make_tasks(count);
    for (auto& t : tasks)
        p->push(&t, t.id % 4 == 0 ? lane::cancel : lane::ready);
    std::set<int> seen;
    schedulable* out[count] = {};
    for (const std::size_t max :
         {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{32}, std::size_t{1000}}) {
        const std::size_t before = p->size();
        const std::size_t asked = std::min(max, before);
        const std::size_t given = p->steal(out, std::min<std::size_t>(max, count));
        require(given <= max, "steal(max = " + text(max) + ") gave " + text(given));
        require(2 * given >= asked,
                "steal(max = " + text(max) + ") with " + text(before) + " queued gave " +
                    text(given) + ": a thief gets a batch, at least half of what it asks for");
        for (std::size_t i = 0; i < given; ++i)
            require(seen.insert(task_of(out[i]).id).second, "steal() gave the same task twice");
        require(p->size() == before - given, "size() did not drop by the number stolen");
    }
    while (schedulable* s = p->pop())
        require(seen.insert(task_of(s).id).second, "a stolen task was also popped");
    require(seen.size() == count, "tasks were lost: " + text(seen.size()) + " of 64 came back");
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
    require(ready_run == 10, "a steady stream of cancel tasks starved the ready lane: " +
                                 text(static_cast<std::uint64_t>(ready_run)) +
                                 " of 10 ready tasks ran in " +
                                 text(static_cast<std::uint64_t>(pops)) + " pops");
}

void ready_stream_does_not_starve_deferred(const detail::factory<lane_policy>& make) {
    auto p = make();
    lanes_deferred* const d = deferred_of(*p);
    if (!d) detail::skip(std::string("the policy does not answer ") + lanes_deferred_name);
    auto deferred_tasks = make_tasks(10);
    auto ready_tasks = make_tasks(2);
    for (auto& t : deferred_tasks)
        d->push_deferred(&t);
    for (auto& t : ready_tasks)
        p->push(&t, lane::ready);
    // Every ready task popped is pushed again at once: woken tasks without end.
    int deferred_run = 0;
    int pops = 0;
    for (; pops < 100'000 && deferred_run < 10; ++pops) {
        schedulable* s = p->pop();
        require(s != nullptr, "pop() returned nothing with tasks queued");
        if (s == &ready_tasks[0] || s == &ready_tasks[1])
            p->push(s, lane::ready);
        else
            ++deferred_run;
    }
    require(deferred_run == 10, "a steady stream of ready tasks starved the deferred ones: " +
                                    text(static_cast<std::uint64_t>(deferred_run)) +
                                    " of 10 deferred tasks ran in " +
                                    text(static_cast<std::uint64_t>(pops)) + " pops");
}

/// Pushes, pops and steals on a policy while holding every pop to the bound
/// the policy stated at the entry's push.
class bound_checker {
  public:
    bound_checker(lane_policy& p, const lanes_fairness& f) : p_(p), f_(f), d_(deferred_of(p)) {}

    /// Whether the policy takes deferred entries.
    bool defers() const { return d_ != nullptr; }

    /// Pushes `t` into `which`, or as deferred (when the policy defers).
    void push(fake_task& t, lane which, bool deferred = false) {
        t.queued = true;
        t.pops_at_push = pops_;
        push_as(p_, d_, t, which, deferred);
        t.bound = t.deferred ? d_->max_pops_before_deferred(queued_[0], queued_[1], queued_[2])
                             : f_.max_pops_before(which, queued_[0], queued_[1]);
        ++queued_[index(t)];
    }
    /// Pops one entry (nullptr when none), checking its wait against its bound.
    fake_task* pop() {
        schedulable* s = p_.pop();
        if (!s) {
            require(queued() == 0, "pop() returned nothing with entries queued");
            return nullptr;
        }
        fake_task& t = leave(s);
        const std::uint64_t waited = pops_ - t.pops_at_push;
        if (waited > t.bound)
            require(false, std::string("an entry pushed into the ") +
                               (t.deferred                    ? "deferred"
                                : t.pushed_to == lane::cancel ? "cancel"
                                                              : "ready") +
                               " lane waited " + text(waited) +
                               " pops, more than the bound the policy states (" + text(t.bound) +
                               ")");
        ++pops_;
        return &t;
    }
    /// Steals up to `max` (at most 16) entries and returns them.
    std::vector<fake_task*> steal(std::size_t max) {
        schedulable* out[16];
        const std::size_t n = p_.steal(out, std::min<std::size_t>(max, 16));
        std::vector<fake_task*> stolen;
        for (std::size_t i = 0; i < n; ++i)
            stolen.push_back(&leave(out[i]));
        return stolen;
    }
    std::size_t queued() const { return queued_[0] + queued_[1] + queued_[2]; }

  private:
    static std::size_t index(const fake_task& t) {
        return t.deferred ? 2 : t.pushed_to == lane::cancel ? 0 : 1;
    }
    fake_task& leave(schedulable* s) {
        fake_task& t = task_of(s);
        require(t.queued, "an entry came back that was not queued");
        t.queued = false;
        --queued_[index(t)];
        return t;
    }

    lane_policy& p_;
    const lanes_fairness& f_;
    lanes_deferred* const d_;
    std::uint64_t pops_ = 0;
    std::size_t queued_[3] = {0, 0, 0};  ///< cancel, ready, deferred
};

void stated_wait_bound_holds(const detail::factory<lane_policy>& make) {
    auto p = make();
    const lanes_fairness* f = fairness_of(*p);
    if (!f) detail::skip(std::string("the policy does not answer ") + lanes_fairness_name);
    if (f->max_pops_before(lane::ready, 0, 0) == lanes_fairness::no_bound &&
        f->max_pops_before(lane::cancel, 0, 0) == lanes_fairness::no_bound)
        detail::skip("the policy states no bound on waiting (a random policy)");
    bound_checker check(*p, *f);
    auto tasks = make_tasks(4096);
    std::vector<fake_task*> idle;
    for (auto& t : tasks)
        idle.push_back(&t);
    auto push_one = [&](lane which, bool deferred = false) {
        if (idle.empty()) return;
        fake_task* t = idle.back();
        idle.pop_back();
        check.push(*t, which, deferred);
    };
    // A cancellation behind queued ready work, then phases of mixed work,
    // cancel storms (each cancel popped is pushed again), ready storms, and,
    // for a policy that defers, storms of woken tasks over deferred ones
    // (each ready entry popped is pushed again).
    push_one(lane::ready);
    push_one(lane::ready);
    push_one(lane::cancel);
    push_one(lane::ready, true);
    std::mt19937 random(11);
    const int phases = check.defers() ? 4 : 3;
    for (int step = 0; step < 80'000; ++step) {
        // mixed, cancel storm, ready storm, woken storm
        const int phase = (step / 2000) % phases;
        const unsigned action = random() % 16;
        if (action < 6) {
            const bool cancel = phase == 1 ? action < 5 : phase >= 2 ? action == 0 : action < 2;
            push_one(cancel ? lane::cancel : lane::ready, action % 2 == 1);
        } else if (action == 15) {
            for (fake_task* t : check.steal(1 + random() % 8))
                idle.push_back(t);
        } else if (fake_task* t = check.pop()) {
            if (phase == 1 && t->pushed_to == lane::cancel)
                check.push(*t, lane::cancel);
            else if (phase == 3 && !t->deferred && t->pushed_to == lane::ready)
                check.push(*t, lane::ready);
            else
                idle.push_back(t);
        }
    }
    while (check.pop()) {
    }
}

/// The value chi-square with `df` degrees of freedom exceeds with probability
/// 1e-6 (Wilson and Hilferty's approximation, within 1% from 10 degrees up).
double chi_square_limit(double df) {
    const double z = 4.753;  // the standard normal's quantile at 1 - 1e-6
    const double a = 2.0 / (9.0 * df);
    return df * std::pow(1.0 - a + z * std::sqrt(a), 3);
}

/// Pearson's chi-square statistic of `counts` against equal expectations.
double chi_square(const std::vector<std::uint64_t>& counts) {
    double total = 0;
    for (const std::uint64_t c : counts)
        total += static_cast<double>(c);
    const double expected = total / static_cast<double>(counts.size());
    double sum = 0;
    for (const std::uint64_t c : counts)
        sum += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
    return sum;
}

void random_picks_are_uniform(const detail::factory<lane_policy>& make) {
    auto p = make();
    const lanes_fairness* f = fairness_of(*p);
    if (!f) detail::skip(std::string("the policy does not answer ") + lanes_fairness_name);
    const std::size_t window = f->random_window();
    if (window == 0) detail::skip("the policy does not pick at random");

    // Each pop is among the `window` queued entries pushed earliest.
    if (window <= 4096) {
        const int count = static_cast<int>(window) + 100;
        auto tasks = make_tasks(count);
        std::set<int> queued;  // ids are push order
        for (auto& t : tasks) {
            p->push(&t, t.id % 3 == 0 ? lane::cancel : lane::ready);
            queued.insert(t.id);
        }
        while (schedulable* s = p->pop()) {
            const int id = task_of(s).id;
            const auto rank =
                static_cast<std::size_t>(std::distance(queued.begin(), queued.lower_bound(id)));
            require(rank < window, "pop() took an entry with " + text(rank) +
                                       " queued entries pushed before it: outside the window "
                                       "of the " +
                                       text(window) + " pushed earliest");
            queued.erase(id);
        }
        require(queued.empty(), "entries were lost");
    }

    // With k entries queued, each popped and pushed again: every entry, and
    // every (previous, next) pair, comes up equally often: a uniform policy
    // fails this once in a million runs (the built-in lab, with its fixed
    // seed, passes or fails the same way every time).
    auto q = make();
    const std::size_t k = std::min<std::size_t>(window, 16);
    if (k < 2) {
        detail::note("a window of 1 entry: nothing to choose from");
        return;
    }
    auto tasks = make_tasks(static_cast<int>(k));
    for (auto& t : tasks)
        q->push(&t, lane::ready);
    constexpr std::uint64_t picks = 160'000;
    std::vector<std::uint64_t> by_entry(k, 0), by_pair(k * k, 0);
    std::size_t previous = k;
    for (std::uint64_t i = 0; i < picks; ++i) {
        schedulable* s = q->pop();
        require(s != nullptr, "pop() returned nothing with entries queued");
        const auto id = static_cast<std::size_t>(task_of(s).id);
        ++by_entry[id];
        if (previous < k) ++by_pair[previous * k + id];
        previous = id;
        q->push(s, lane::ready);
    }
    const double entries = chi_square(by_entry);
    const double pairs = chi_square(by_pair);
    const double entry_limit = chi_square_limit(static_cast<double>(k - 1));
    const double pair_limit = chi_square_limit(static_cast<double>(k * k - 1));
    require(entries < entry_limit, "picks are not uniform over the entries: chi-square " +
                                       std::to_string(entries) + " over " + text(k) + " entries");
    require(pairs < pair_limit, "consecutive picks are not independent: chi-square " +
                                    std::to_string(pairs) + " over " + text(k * k) + " pairs");
    detail::note("chi-square " + std::to_string(std::lround(entries)) + " over " + text(k) +
                 " entries, " + std::to_string(std::lround(pairs)) + " over their pairs, in " +
                 text(picks) + " picks");
}

}  // namespace

namespace detail {

const std::vector<test_case<lane_policy>>& lanes_cases() {
    static const std::vector<test_case<lane_policy>> cases{
        {"empty_policy_pops_nothing", &empty_policy_pops_nothing,
         "an empty policy pops nothing and has nothing to steal"},
        {"every_entry_comes_back_exactly_once", &every_entry_comes_back_exactly_once,
         "20,000 random pushes, steals and pops: every entry comes back once, through pop or "
         "steal, and `size()` stays right"},
        {"steal_hands_over_a_batch", &steal_hands_over_a_batch,
         "`steal(max)` gives at most `max` and at least half of `min(max, size())`, none twice, "
         "and pop does not give them again"},
        {"cancel_stream_does_not_starve_ready", &cancel_stream_does_not_starve_ready,
         "a stream of cancels does not starve ready tasks"},
        {"ready_stream_does_not_starve_deferred", &ready_stream_does_not_starve_deferred,
         "a stream of woken tasks does not starve deferred ones (skipped when the policy does "
         "not answer rtkit.lanes_deferred.v1)"},
        {"stated_wait_bound_holds", &stated_wait_bound_holds,
         "80,000 steps of mixed work, cancel storms, ready storms and woken storms over deferred "
         "entries: no entry waits more pops than `max_pops_before` (or "
         "`max_pops_before_deferred`) stated at its push (skipped when the policy states no "
         "bound)"},
        {"random_picks_are_uniform", &random_picks_are_uniform,
         "for a random policy: each pop takes one of the `random_window()` queued entries pushed "
         "earliest, and 160,000 picks among 16 entries are uniform, over entries and over "
         "consecutive pairs (chi-square at p = 1e-6; skipped for a deterministic policy)"},
    };
    return cases;
}

}  // namespace detail

report run_lanes_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<lane_policy>(file, options, detail::lanes_cases());
}

}  // namespace rtkit::conformance
