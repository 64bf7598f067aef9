// A timer driver for testing the timer suite: plain and correct (an ordered
// map from deadline and insertion number to waker, bound to the runtime's
// clock), except for the one defect its VARIANT_ macro selects. Each defect
// breaks one rule of rtkit/timer_driver.hpp, which one case of the suite must
// catch (variant_timers_test.cpp); "correct" and "unbound" (which binds no
// clock) pass the suite, as a third party's driver would.
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rtkit/clock.hpp"
#include "rtkit/plugin.hpp"
#include "rtkit/timer_driver.hpp"

namespace {

class variant_timer final : public rtkit::timer_driver, public rtkit::timer_clock_binding {
  public:
    explicit variant_timer(const rtkit::plugin_options&) {}

    void* query_interface(const char* name) noexcept override {
#ifdef VARIANT_UNBOUND
        (void)name;
        return nullptr;
#else
        if (std::strcmp(name, rtkit::timer_clock_binding_name) == 0)
            return static_cast<rtkit::timer_clock_binding*>(this);
        return nullptr;
#endif
    }
    void bind_clock(const rtkit::clock_source& clock) noexcept override {
        clock_ = &clock;
    }

    rtkit::instant now() const noexcept override {
#ifndef VARIANT_IGNORES_CLOCK  // binds the clock, then reads its own anyway
        if (clock_) return clock_->now();
#endif
        return std::chrono::time_point_cast<rtkit::duration>(std::chrono::steady_clock::now());
    }

    rtkit::timer_handle insert(rtkit::instant deadline, rtkit::waker w) override {
        std::int64_t at = deadline.time_since_epoch().count();
#ifdef VARIANT_WRAPS_AT_THE_END  // adds a microsecond of slack to a deadline near the end
        if (at > std::numeric_limits<std::int64_t>::max() - 1000)
            at = static_cast<std::int64_t>(static_cast<std::uint64_t>(at) + 1000);
#endif
        std::uint64_t order = inserted_++;
#ifdef VARIANT_TIES_REVERSED
        order = ~order;
#endif
        const rtkit::timer_handle handle = next_handle_++;
#ifdef VARIANT_LOSES_BEYOND_A_LIMIT  // forgets timers beyond 500,000, silently
        if (armed_.size() >= 500'000) return handle;
#endif
        const key k{at, order};
        armed_.emplace(k, armed_timer{handle, std::move(w)});
        by_handle_.emplace(handle, k);
        return handle;
    }

    bool cancel(rtkit::timer_handle handle) noexcept override {
        const auto it = by_handle_.find(handle);
        if (it == by_handle_.end()) return false;
        armed_.erase(it->second);
        by_handle_.erase(it);
        return true;
    }

    std::optional<rtkit::instant> next_deadline() const noexcept override {
        if (armed_.empty()) return std::nullopt;
        return rtkit::instant(rtkit::duration(armed_.begin()->first.first));
    }

    std::size_t fire(rtkit::instant now) override {
        std::int64_t at = now.time_since_epoch().count();
#ifdef VARIANT_FIRES_ONLY_AFTER  // a timer fires once now is past its deadline, not at it
        --at;
#endif
        std::size_t fired = 0;
#ifdef VARIANT_WAKES_CANCELLED  // takes every due timer out first, then wakes them all
        std::vector<rtkit::waker> due;
        while (!armed_.empty() && armed_.begin()->first.first <= at) {
            by_handle_.erase(armed_.begin()->second.handle);
            due.push_back(std::move(armed_.begin()->second.waker));
            armed_.erase(armed_.begin());
        }
        for (rtkit::waker& w : due) {
            w.wake();
            ++fired;
        }
#else
        while (!armed_.empty() && armed_.begin()->first.first <= at) {
            rtkit::waker w = std::move(armed_.begin()->second.waker);
            by_handle_.erase(armed_.begin()->second.handle);
            armed_.erase(armed_.begin());
            w.wake();
            ++fired;
        }
#endif
        return fired;
    }

  private:
    using key = std::pair<std::int64_t, std::uint64_t>;  ///< deadline ns, insertion number
    struct armed_timer {
        rtkit::timer_handle handle;
        rtkit::waker waker;
    };

    const rtkit::clock_source* clock_ = nullptr;
    std::map<key, armed_timer> armed_;
    std::unordered_map<rtkit::timer_handle, key> by_handle_;
    std::uint64_t inserted_ = 0;
    rtkit::timer_handle next_handle_ = 1;
};

constexpr rtkit_plugin_descriptor variant_descriptor =
    rtkit::make_plugin_descriptor<rtkit::timer_driver, variant_timer>(
        VARIANT_NAME, "0.0.1", "test timer: correct but for one defect (variant_timer.cpp)",
        nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(variant_descriptor)
