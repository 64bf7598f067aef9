// Lane policies for testing the lanes suite: a plain two-lane policy (cancel
// first, a streak limit of 4, both lanes FIFO) that states its bound through
// rtkit.lanes_fairness.v1, or a plain random one (VARIANT_RANDOM: uniform over
// a window of 8), each correct except for the one defect its VARIANT_ macro
// selects, which one case of the suite must catch (variant_lanes_test.cpp).
#include <cstring>
#include <deque>
#include <random>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"

namespace {

constexpr std::size_t streak_limit = 4;
constexpr std::size_t window = 8;

class variant_lanes final : public rtkit::lane_policy, public rtkit::lanes_fairness {
  public:
    explicit variant_lanes(const rtkit::plugin_options&) {}

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override {
#ifdef VARIANT_RANDOM  // one pool, in push order
        which = rtkit::lane::ready;
#endif
        (which == rtkit::lane::cancel ? cancel_ : ready_).push_back(entry);
    }

    rtkit::schedulable* pop() noexcept override {
#ifdef VARIANT_RANDOM
        if (ready_.empty()) return nullptr;
#ifdef VARIANT_OUTSIDE_WINDOW  // picks among every queued entry, not the window it states
        const std::size_t n = ready_.size();
#else
        const std::size_t n = std::min(ready_.size(), window);
#endif
#ifdef VARIANT_ROUND_ROBIN  // even counts, but each pick follows from the last
        const std::size_t i = turn_++ % n;
#else
        const std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(random_);
#endif
        rtkit::schedulable* entry = ready_[i];
        ready_.erase(ready_.begin() + static_cast<long>(i));
        return entry;
#else
#ifdef VARIANT_STREAK_OFF_BY_ONE  // one cancel pop more than it states
        const std::size_t limit = streak_limit + 1;
#else
        const std::size_t limit = streak_limit;
#endif
        if (!cancel_.empty() && (streak_ < limit || ready_.empty())) {
            ++streak_;
            return take(cancel_);
        }
        if (ready_.empty()) return nullptr;
        streak_ = 0;
#ifdef VARIANT_LIFO  // the ready lane is last in, first out
        rtkit::schedulable* entry = ready_.back();
        ready_.pop_back();
        return entry;
#else
        return take(ready_);
#endif
#endif
    }

    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override {
#ifdef VARIANT_STEALS_ONE  // a thief gets one entry however many it asks for
        max = std::min<std::size_t>(max, 1);
#endif
        std::size_t taken = 0;
        while (taken < max && !cancel_.empty())
            out[taken++] = take(cancel_);
        while (taken < max && !ready_.empty())
            out[taken++] = take(ready_);
#ifdef VARIANT_STEALS_A_COPY  // the last entry stolen stays queued too
        if (taken > 0) ready_.push_back(out[taken - 1]);
#endif
        return taken;
    }

    std::size_t size() const noexcept override {
        return cancel_.size() + ready_.size();
    }

    void* query_interface(const char* name) noexcept override {
        if (std::strcmp(name, rtkit::lanes_fairness_name) == 0)
            return static_cast<rtkit::lanes_fairness*>(this);
        return nullptr;
    }
    std::size_t max_pops_before(rtkit::lane which, std::size_t cancel_queued,
                                std::size_t ready_queued) const noexcept override {
#ifdef VARIANT_RANDOM
        (void)which, (void)cancel_queued, (void)ready_queued;
        return no_bound;
#else
        if (which == rtkit::lane::cancel) return cancel_queued + 1 + cancel_queued / streak_limit;
        return ready_queued + (ready_queued + 1) * streak_limit;
#endif
    }
    std::size_t random_window() const noexcept override {
#ifdef VARIANT_RANDOM
        return window;
#else
        return 0;
#endif
    }

  private:
    static rtkit::schedulable* take(std::deque<rtkit::schedulable*>& lane) noexcept {
        rtkit::schedulable* entry = lane.front();
        lane.pop_front();
        return entry;
    }

    // A test policy may allocate in push; the built-in ones may not.
    std::deque<rtkit::schedulable*> cancel_, ready_;
    std::size_t streak_ = 0;
    std::size_t turn_ = 0;
    std::mt19937_64 random_{5};
};

constexpr rtkit_plugin_descriptor variant_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, variant_lanes>(
        VARIANT_NAME, "0.0.1", "test lanes: correct but for one defect (variant_lanes.cpp)",
        nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(variant_descriptor)
