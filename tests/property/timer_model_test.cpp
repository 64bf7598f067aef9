// The timing wheel (plugins/timer_wheel, loaded from its plugin file) against
// a model, a sorted multimap from deadline to timer, over random sequences of
// insert, cancel and advance: deadlines near, far (up to the int64 limit), in
// the past and exactly now; cancels of live, fired and cancelled timers.
//
// After every step: fire(now) wakes exactly the timers whose deadline is at or
// before now; cancel returns true exactly for a timer that is still armed,
// and drops its waker without waking it; next_deadline is nothing when
// nothing is armed, else the earliest deadline rounded up by less than one
// tick (never early, so a far deadline is never mistaken for a past one).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "property_support.hpp"
#include "rtkit/time.hpp"
#include "rtkit/timer_driver.hpp"

using namespace property_test;

namespace {

/// Wakers that record which timer woke, and count the references alive.
struct wake_log {
    std::vector<int> woken;
    int live_wakers = 0;
};

struct timer_token {
    wake_log* log;
    int id;
};

constexpr rtkit::waker_vtable token_vtable{
    [](void* data) {  // wake
        auto* token = static_cast<timer_token*>(data);
        token->log->woken.push_back(token->id);
        --token->log->live_wakers;
        delete token;
    },
    [](void* data) {  // wake_by_ref
        auto* token = static_cast<timer_token*>(data);
        token->log->woken.push_back(token->id);
    },
    [](void* data) -> void* {  // clone
        auto* token = static_cast<timer_token*>(data);
        ++token->log->live_wakers;
        return new timer_token(*token);
    },
    [](void* data) {  // drop
        auto* token = static_cast<timer_token*>(data);
        --token->log->live_wakers;
        delete token;
    },
};

rtkit::waker waker_for(wake_log& log, int id) {
    ++log.live_wakers;
    return rtkit::waker(new timer_token{&log, id}, &token_vtable);
}

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();

rtkit::instant at(std::int64_t ns) {
    return rtkit::instant(rtkit::duration(ns));
}

/// `ns + by`, held at the ends of the clock (rtkit::saturating_add).
std::int64_t later(std::int64_t ns, std::int64_t by) {
    return rtkit::saturating_add(at(ns), rtkit::duration(by)).time_since_epoch().count();
}

/// A deadline relative to `now`, of one of the kinds the wheel must handle.
std::int64_t any_deadline(std::int64_t now, std::int64_t tick_ns) {
    switch (*rc::gen::inRange(0, 6)) {
        case 0:  // within a few ticks
            return later(now, *rc::gen::inRange<std::int64_t>(0, 10 * tick_ns));
        case 1:  // anywhere in the wheel's levels, or its overflow
            return later(now, *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 52));
        case 2:  // at the far end of the clock: "never"
            return int64_max - *rc::gen::inRange<std::int64_t>(0, 10 * tick_ns);
        case 3:  // in the past, as far back as the clock goes
            return *rc::gen::inRange<std::int64_t>(int64_min, now);
        case 4:
            return now;
        default:
            return int64_max;
    }
}

/// How far the clock moves in one step.
std::int64_t any_advance(std::int64_t now, std::int64_t tick_ns) {
    switch (*rc::gen::inRange(0, 4)) {
        case 0:
            return *rc::gen::inRange<std::int64_t>(0, 3 * tick_ns);
        case 1:
            return *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 52);
        case 2:  // to near the end of the clock
            return std::max<std::int64_t>(
                0, int64_max - now - *rc::gen::inRange<std::int64_t>(0, 10 * tick_ns));
        default:
            return int64_max;  // saturates at the end
    }
}

void check_next_deadline(const rtkit::timer_driver& wheel,
                         const std::multimap<std::int64_t, int>& armed, std::int64_t tick_ns) {
    const std::optional<rtkit::instant> next = wheel.next_deadline();
    if (armed.empty()) {
        RC_ASSERT(!next.has_value());
        return;
    }
    RC_ASSERT(next.has_value());
    const std::int64_t earliest = armed.begin()->first;
    const std::int64_t reported = next->time_since_epoch().count();
    RC_ASSERT(reported >= earliest);  // never early: a far deadline is not "now"
    // Exact in unsigned arithmetic, since reported >= earliest.
    RC_ASSERT(static_cast<std::uint64_t>(reported) - static_cast<std::uint64_t>(earliest) <
              static_cast<std::uint64_t>(tick_ns));
}

/// One random sequence of operations on a new wheel, checked step by step.
void wheel_matches_model() {
    const std::int64_t tick_us = *rc::gen::element<std::int64_t>(10, 1000, 999983, 1000000);
    const std::int64_t tick_ns = tick_us * 1000;
    wake_log log;
    {
        const auto wheel = builtin_plugin<rtkit::timer_driver>("wheel", {{"tick_us", tick_us}});
        std::int64_t now = wheel->now().time_since_epoch().count();
        std::multimap<std::int64_t, int> armed;  // the model: deadline -> timer id
        std::vector<rtkit::timer_handle> handles;
        std::vector<std::int64_t> deadlines;

        const int steps = *rc::gen::inRange(1, 120);
        for (int step = 0; step < steps; ++step) {
            switch (*rc::gen::inRange(0, 3)) {
                case 0: {
                    const int id = static_cast<int>(handles.size());
                    const std::int64_t deadline = any_deadline(now, tick_ns);
                    handles.push_back(wheel->insert(at(deadline), waker_for(log, id)));
                    deadlines.push_back(deadline);
                    armed.emplace(deadline, id);
                    break;
                }
                case 1: {
                    if (handles.empty()) break;
                    const int id = *rc::gen::inRange<int>(0, static_cast<int>(handles.size()));
                    auto range = armed.equal_range(deadlines[static_cast<std::size_t>(id)]);
                    auto it = std::find_if(range.first, range.second,
                                           [&](const auto& entry) { return entry.second == id; });
                    const bool was_armed = it != range.second;
                    const int live_before = log.live_wakers;
                    RC_ASSERT(wheel->cancel(handles[static_cast<std::size_t>(id)]) == was_armed);
                    if (was_armed) {
                        armed.erase(it);
                        RC_ASSERT(log.live_wakers == live_before - 1);  // dropped, not kept
                    }
                    break;
                }
                default: {
                    now = later(now, any_advance(now, tick_ns));
                    std::set<int> due;
                    while (!armed.empty() && armed.begin()->first <= now) {
                        due.insert(armed.begin()->second);
                        armed.erase(armed.begin());
                    }
                    log.woken.clear();
                    RC_ASSERT(wheel->fire(at(now)) == due.size());
                    RC_ASSERT(std::set<int>(log.woken.begin(), log.woken.end()) == due);
                    RC_ASSERT(log.woken.size() == due.size());
                    break;
                }
            }
            check_next_deadline(*wheel, armed, tick_ns);
            RC_ASSERT(log.live_wakers == static_cast<int>(armed.size()));
        }
    }
    RC_ASSERT(log.live_wakers == 0);  // destroying the wheel drops what is still armed
}

}  // namespace

TEST_CASE("timer wheel - fire cancel and next_deadline agree with a sorted multimap") {
    CHECK(rc::check(wheel_matches_model));
}

TEST_CASE(
    "timer wheel - a deadline at the end of the clock is reported there - never in the past") {
    for (const std::int64_t tick_us :
         {std::int64_t{10}, std::int64_t{1000}, std::int64_t{999983}}) {
        wake_log log;
        const auto wheel = builtin_plugin<rtkit::timer_driver>("wheel", {{"tick_us", tick_us}});
        wheel->insert(at(int64_max), waker_for(log, 0));
        REQUIRE(wheel->next_deadline().has_value());
        CHECK(wheel->next_deadline()->time_since_epoch().count() == int64_max);
        CHECK(wheel->fire(wheel->now()) == 0);
        CHECK(wheel->fire(at(int64_max)) == 1);
    }
}

TEST_CASE("timer wheel - a deadline at the start of the clock is reported as itself and fires") {
    wake_log log;
    const auto wheel =
        builtin_plugin<rtkit::timer_driver>("wheel", {{"tick_us", std::int64_t{1000}}});
    wheel->insert(at(int64_min), waker_for(log, 0));
    REQUIRE(wheel->next_deadline().has_value());
    CHECK(wheel->next_deadline()->time_since_epoch().count() == int64_min);
    CHECK(wheel->fire(wheel->now()) == 1);
}
