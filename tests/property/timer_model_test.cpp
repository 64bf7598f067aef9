// The timer drivers (plugins/timer_wheel under random geometries, and
// plugins/timer_heap, loaded from their plugin files and bound to a clock
// that starts anywhere) against a model, a sorted multimap from deadline to
// timer, over random sequences of insert, cancel and advance: deadlines near,
// far (up to the int64 limit), in the past and exactly now; cancels of live,
// fired and cancelled timers.
//
// After every step: fire(now) wakes exactly the timers whose deadline is at or
// before now, in order (the heap by deadline, the wheel by tick, a deadline
// already past when armed counting as due in the tick the wheel stood at;
// equal deadlines in insertion order); cancel returns true exactly for a
// timer that is still armed, and drops its waker without waking it;
// next_deadline is nothing when nothing is armed, else the earliest deadline
// rounded up by less than one tick (the heap: exact; never early, so a far
// deadline is never mistaken for a past one).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "property_support.hpp"
#include "rtkit/clock.hpp"
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

/// A clock the test moves, bound to the driver as a runtime binds its own.
class test_clock final : public rtkit::clock_source {
  public:
    explicit test_clock(std::int64_t start) : ns_(start) {}
    rtkit::instant now() const noexcept override { return at(ns_); }
    void set(std::int64_t ns) { ns_ = ns; }

  private:
    std::int64_t ns_;
};

/// A driver bound to `clock`.
std::shared_ptr<rtkit::timer_driver> bound(std::string_view name, rtkit::option_table options,
                                           const test_clock& clock) {
    auto driver = builtin_plugin<rtkit::timer_driver>(name, std::move(options));
    auto* binding = static_cast<rtkit::timer_clock_binding*>(
        driver->query_interface(rtkit::timer_clock_binding_name));
    RC_ASSERT(binding != nullptr);
    binding->bind_clock(clock);
    return driver;
}

/// `ns + by`, held at the ends of the clock (rtkit::saturating_add).
std::int64_t later(std::int64_t ns, std::int64_t by) {
    return rtkit::saturating_add(at(ns), rtkit::duration(by)).time_since_epoch().count();
}

/// A deadline relative to `now`, of one of the kinds a driver must handle.
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
        case 2: {  // to near the end of the clock (from before zero, as far as it goes)
            const std::int64_t to_end = now < 0 ? int64_max : int64_max - now;
            return std::max<std::int64_t>(
                0, to_end - *rc::gen::inRange<std::int64_t>(0, 10 * tick_ns));
        }
        default:
            return int64_max;  // saturates at the end
    }
}

void check_next_deadline(const rtkit::timer_driver& driver,
                         const std::multimap<std::int64_t, int>& armed, std::int64_t tick_ns) {
    const std::optional<rtkit::instant> next = driver.next_deadline();
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

/// Where the wheel (tick `tick_ns` from `origin`) puts a deadline: its tick.
std::uint64_t tick_of(std::int64_t deadline, std::int64_t origin, std::int64_t tick_ns) {
    if (deadline <= origin) return 0;
    return (static_cast<std::uint64_t>(deadline) - static_cast<std::uint64_t>(origin)) /
           static_cast<std::uint64_t>(tick_ns);
}

/// One random sequence of operations on a new driver, checked step by step.
void driver_matches_model() {
    const bool heap = *rc::gen::arbitrary<bool>();
    const std::int64_t tick_us = *rc::gen::element<std::int64_t>(10, 1000, 999983, 1000000);
    // The heap has no tick: its next_deadline is exact, as if its tick were 1 ns.
    const std::int64_t tick_ns = heap ? 1 : tick_us * 1000;
    const rtkit::option_table options =
        heap ? rtkit::option_table{{"arity", *rc::gen::inRange<std::int64_t>(2, 9)}}
             : rtkit::option_table{
                   {"tick_us", tick_us},
                   {"levels", *rc::gen::inRange<std::int64_t>(1, 7)},
                   {"slots_per_level", *rc::gen::element<std::int64_t>(2, 4, 8, 64)}};
    const std::int64_t origin =
        *rc::gen::element<std::int64_t>(0, -(std::int64_t{1} << 40), std::int64_t{1} << 61);
    test_clock clock(origin);
    wake_log log;
    {
        const auto driver = bound(heap ? "heap" : "wheel", options, clock);
        std::int64_t now = origin;
        std::uint64_t wheel_tick = 0;            // where the wheel stands: the last fire's tick
        std::multimap<std::int64_t, int> armed;  // the model: deadline -> timer id
        std::vector<rtkit::timer_handle> handles;
        std::vector<std::int64_t> deadlines;
        std::vector<std::uint64_t> ticks;  // the wheel's tick for each timer

        const int steps = *rc::gen::inRange(1, 120);
        for (int step = 0; step < steps; ++step) {
            switch (*rc::gen::inRange(0, 3)) {
                case 0: {
                    const int id = static_cast<int>(handles.size());
                    const std::int64_t deadline = any_deadline(now, tick_us * 1000);
                    handles.push_back(driver->insert(at(deadline), waker_for(log, id)));
                    deadlines.push_back(deadline);
                    ticks.push_back(std::max(tick_of(deadline, origin, tick_ns), wheel_tick));
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
                    RC_ASSERT(driver->cancel(handles[static_cast<std::size_t>(id)]) == was_armed);
                    if (was_armed) {
                        armed.erase(it);
                        RC_ASSERT(log.live_wakers == live_before - 1);  // dropped, not kept
                    }
                    break;
                }
                default: {
                    now = later(now, any_advance(now, tick_us * 1000));
                    clock.set(now);
                    std::set<int> due;
                    while (!armed.empty() && armed.begin()->first <= now) {
                        due.insert(armed.begin()->second);
                        armed.erase(armed.begin());
                    }
                    log.woken.clear();
                    RC_ASSERT(driver->fire(at(now)) == due.size());
                    RC_ASSERT(std::set<int>(log.woken.begin(), log.woken.end()) == due);
                    RC_ASSERT(log.woken.size() == due.size());
                    for (std::size_t i = 1; i < log.woken.size(); ++i) {
                        const auto a = static_cast<std::size_t>(log.woken[i - 1]);
                        const auto b = static_cast<std::size_t>(log.woken[i]);
                        if (heap)  // exact order: by deadline, then insertion
                            RC_ASSERT(deadlines[a] < deadlines[b] ||
                                      (deadlines[a] == deadlines[b] && a < b));
                        else  // by tick, equal deadlines in insertion order
                            RC_ASSERT(
                                ticks[a] < ticks[b] ||
                                (ticks[a] == ticks[b] && (deadlines[a] != deadlines[b] || a < b)));
                    }
                    wheel_tick = std::max(wheel_tick, tick_of(now, origin, tick_ns));
                    break;
                }
            }
            check_next_deadline(*driver, armed, tick_ns);
            RC_ASSERT(driver->now() == clock.now());
            RC_ASSERT(log.live_wakers == static_cast<int>(armed.size()));
        }
    }
    RC_ASSERT(log.live_wakers == 0);  // destroying the driver drops what is still armed
}

/// Many timers in one far slot of the wheel, arriving in and out of deadline
/// order, while the earliest (and others) are cancelled and more arrive: the
/// wheel scans such a slot for its earliest once, then sorts it in place.
/// next_deadline stays within a tick of the model's, and the rest fire by
/// tick, equal deadlines in insertion order.
void crowded_slot_matches_model() {
    constexpr std::int64_t tick_ns = 1'000'000;
    test_clock clock(0);
    wake_log log;
    {
        const auto wheel = bound("wheel", {{"tick_us", std::int64_t{1000}}}, clock);
        std::multimap<std::int64_t, int> armed;
        std::vector<rtkit::timer_handle> handles;
        std::vector<std::int64_t> deadlines;
        // Ticks 8192..12287 share one slot of level 2 (64 slots a level); on a
        // grid of quarter ticks, so that some deadlines are equal.
        constexpr std::int64_t grid = tick_ns / 4;
        const auto any_deadline = [] {
            return *rc::gen::inRange<std::int64_t>(8'192 * 4, 12'288 * 4) * grid;
        };
        const auto arm = [&](std::int64_t deadline) {
            const int id = static_cast<int>(handles.size());
            handles.push_back(wheel->insert(at(deadline), waker_for(log, id)));
            deadlines.push_back(deadline);
            armed.emplace(deadline, id);
        };
        const auto disarm = [&](std::multimap<std::int64_t, int>::iterator it) {
            RC_ASSERT(wheel->cancel(handles[static_cast<std::size_t>(it->second)]));
            armed.erase(it);
        };
        std::int64_t in_order = 8'192 * tick_ns;
        const int steps = *rc::gen::inRange(1, 400);
        for (int step = 0; step < steps; ++step) {
            switch (*rc::gen::inRange(0, 4)) {
                case 0:
                    arm(any_deadline());
                    break;
                case 1:  // later than every one before: a list stays in order
                    in_order += *rc::gen::inRange<std::int64_t>(0, 3) * grid;
                    arm(std::min(in_order, 12'288 * tick_ns - 1));
                    break;
                case 2:
                    if (!armed.empty()) disarm(armed.begin());
                    break;
                default:
                    if (!armed.empty())
                        disarm(std::next(armed.begin(), *rc::gen::inRange<long>(
                                                            0, static_cast<long>(armed.size()))));
                    break;
            }
            check_next_deadline(*wheel, armed, tick_ns);
        }
        log.woken.clear();
        clock.set(12'288 * tick_ns);
        RC_ASSERT(wheel->fire(clock.now()) == armed.size());
        RC_ASSERT(log.woken.size() == armed.size());
        for (std::size_t i = 1; i < log.woken.size(); ++i) {
            const auto a = static_cast<std::size_t>(log.woken[i - 1]);
            const auto b = static_cast<std::size_t>(log.woken[i]);
            RC_ASSERT(deadlines[a] / tick_ns <= deadlines[b] / tick_ns);
            if (deadlines[a] == deadlines[b]) RC_ASSERT(a < b);
        }
    }
    RC_ASSERT(log.live_wakers == 0);
}

}  // namespace

TEST_CASE("timer drivers - fire cancel next_deadline and wake order agree with a sorted multimap") {
    CHECK(rc::check(driver_matches_model));
}

TEST_CASE("timer wheel - a crowded slot keeps next_deadline exact as its earliest timers go") {
    CHECK(rc::check(crowded_slot_matches_model));
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
