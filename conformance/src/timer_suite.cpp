// The timer driver conformance suite. Every case runs twice when the driver
// binds a clock (rtkit/clock.hpp): on a manual clock the suite moves, as a
// runtime's virtual clock jumps, and on the real clock; a driver that binds
// none runs on the real clock only. fire() takes `now` as a parameter, so on
// the real clock a case reaches deadlines days away by firing with instants
// the clock has not reached, and waits only where it checks real time.
#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>

#include "counting_waker.hpp"
#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"
#include "timer_clocks.hpp"
#include "wake_log.hpp"

namespace rtkit::conformance {
namespace {

using namespace std::chrono_literals;
using detail::require;
using detail::timer_env;
using detail::wake_log;
using testing::counting_waker;

/// How far past the true earliest deadline next_deadline() may be, and how
/// far apart two deadlines must be for their wake order to be checked (the
/// driver's resolution); more than this would oversleep.
constexpr rtkit::duration resolution = 10ms;

std::string ns_text(rtkit::duration d) {
    return std::to_string(d.count()) + " ns";
}

std::string text(std::uint64_t n) {
    return std::to_string(n);
}

/// Fails unless the timers in `woken` (numbered in insertion order), woken in
/// one fire(), are in deadline order at the resolution, and timers with equal
/// deadlines in insertion order.
void require_wake_order(const std::vector<std::uint32_t>& woken, std::size_t from,
                        const std::vector<instant>& deadlines) {
    instant latest = instant::min();
    std::unordered_map<std::int64_t, std::uint32_t> last_of_deadline;
    for (std::size_t i = from; i < woken.size(); ++i) {
        const std::uint32_t id = woken[i];
        const instant d = deadlines[id];
        if (d + resolution <= latest)
            require(false, "fire() woke timer " + text(id) + " after a timer whose deadline is " +
                               ns_text(latest - d) + " later (deadline order, at " +
                               ns_text(resolution) + ")");
        latest = std::max(latest, d);
        auto [it, first] = last_of_deadline.try_emplace(d.time_since_epoch().count(), id);
        if (!first && it->second > id)
            require(false, "timers " + text(it->second) + " and " + text(id) +
                               " have the same deadline and woke in the reverse of the order "
                               "they were inserted in");
        it->second = id;
    }
}

/// A waker that cancels timers of its driver when it is woken, as a waker run
/// by fire() may.
struct cancelling_waker {
    timer_driver* driver = nullptr;
    std::vector<timer_handle> targets;
    std::vector<bool> results;  ///< cancel()'s answers, in the order of targets
    int wakes = 0;
    int live = 0;

    waker make() {
        ++live;
        return waker(this, &vtable);
    }
    static void on_wake_by_ref(void* data) {
        auto* self = static_cast<cancelling_waker*>(data);
        ++self->wakes;
        for (const timer_handle h : self->targets)
            self->results.push_back(self->driver->cancel(h));
    }
    static void on_drop(void* data) { --static_cast<cancelling_waker*>(data)->live; }
    static void on_wake(void* data) {
        on_wake_by_ref(data);
        on_drop(data);
    }
    static void* on_clone(void* data) {
        ++static_cast<cancelling_waker*>(data)->live;
        return data;
    }
    static constexpr waker_vtable vtable{&on_wake, &on_wake_by_ref, &on_clone, &on_drop};
};

void fires_at_deadline_never_before(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    const instant deadline = env.now() + 10ms + 123us;
    t->insert(deadline, w.make());
    require(env.fire_at(*t, deadline - 1ns) == 0 && w.wakes == 0,
            "a timer fired 1 ns before its deadline");
    require(env.fire_at(*t, deadline) == 1, "fire(deadline) did not report the timer it fired");
    require(w.wakes == 1, "fire(deadline) did not wake the timer due at exactly that instant");
    require(w.live == 0, "a fired timer kept its waker");
    require(env.fire_at(*t, deadline + 1s) == 0 && w.wakes == 1, "a timer fired twice");

    // As a runtime runs it: wait until next_deadline(), fire with the clock's time.
    counting_waker soon_waker;
    auto u = env.make();
    const instant soon = env.now() + 20ms;
    u->insert(soon, soon_waker.make());
    instant fired_at{};
    const instant give_up = env.now() + 5s;
    while (soon_waker.wakes == 0 && env.now() < give_up) {
        const auto next = u->next_deadline();
        require(next.has_value(), "next_deadline() is empty with a timer armed");
        env.clock.wait_until(std::min(*next, give_up));
        const instant now = env.now();
        if (u->fire(now) > 0) fired_at = now;
    }
    require(soon_waker.wakes == 1,
            "a 20 ms timer did not fire within 5 s of waiting for next_deadline() and firing");
    require(fired_at >= soon, "a timer fired " + ns_text(soon - fired_at) + " early");
}

void past_deadline_fires_at_next_fire(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    const instant now = env.now();
    t->insert(now - 1s, w.make());
    require(t->next_deadline().has_value(), "next_deadline() is empty with a timer armed");
    require(*t->next_deadline() <= now, "next_deadline() of an overdue timer is in the future");
    env.fire_at(*t, now);
    require(w.wakes == 1, "a deadline in the past did not fire at the next fire()");
}

void deadlines_in_the_past_and_at_the_end(const timer_env& env) {
    wake_log log;
    auto t = env.make();
    const instant now = env.now();
    const instant end = instant::max();
    const std::vector<instant> deadlines{
        instant::min(), now - 1s, now, end, end - 1ns, saturating_add(now, duration::max())};
    for (std::uint32_t i = 0; i < deadlines.size(); ++i)
        t->insert(deadlines[i], log.make(i));
    const auto first = t->next_deadline();
    require(first && *first <= now, "next_deadline() of overdue timers is in the future");
    const std::size_t due = env.fire_at(*t, now);
    require(due == 3, "fire(now) fired " + text(due) +
                          " timers, not the 3 due by now: a deadline at the end of the clock "
                          "wrapped around into the past, or one in the past did not fire");
    require(log.order == std::vector<std::uint32_t>{0, 1, 2},
            "the timers due at instant::min(), now - 1 s and now did not wake in that order");
    const auto next = t->next_deadline();
    require(next && *next >= end - 1ns,
            "next_deadline() with timers at the end of the clock is not at its end: a far "
            "deadline wrapped around into the past");
    require(env.fire_at(*t, now + 1000 * 24h) == 0,
            "a timer at the end of the clock fired 1000 days from now");
    require(env.fire_at(*t, end - 1ns) == 1 && log.order.size() == 4 && log.order[3] == 4,
            "fire(instant::max() - 1 ns) did not fire exactly the timer due then");
    require(env.fire_at(*t, end) == 2, "fire(instant::max()) did not fire the timers due then");
    require(log.order == std::vector<std::uint32_t>{0, 1, 2, 4, 3, 5},
            "the timers at instant::max() did not wake in insertion order");
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
    require(log.live == 0 && log.repeated == 0, "wakers were kept or woken twice");
}

void cancel_prevents_firing(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    const instant deadline = env.now() + 50ms;
    const timer_handle h = t->insert(deadline, w.make());
    require(t->cancel(h), "cancel() of an armed timer returned false");
    require(w.live == 0, "cancel() did not drop the waker");
    require(w.wakes == 0, "cancel() woke the waker");
    require(!t->next_deadline().has_value(), "next_deadline() still set after the only cancel");
    env.fire_at(*t, deadline + 1h);
    require(w.wakes == 0, "a cancelled timer fired");
    require(!t->cancel(h), "a second cancel() returned true");
}

void cancel_after_fire_returns_false(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    const instant deadline = env.now() + 5ms;
    const timer_handle h = t->insert(deadline, w.make());
    env.fire_at(*t, deadline);
    require(w.wakes == 1, "the timer did not fire");
    require(!t->cancel(h), "cancel() after the timer fired returned true");
}

void cancel_from_a_waker_during_fire(const timer_env& env) {
    wake_log log;
    cancelling_waker canceller;
    auto t = env.make();
    canceller.driver = t.get();
    const instant d = env.now() + 20ms;
    // The canceller fires first; it cancels B (due in this fire, same
    // deadline), C (due in this fire, 5 ms later), E (not due) and itself.
    const timer_handle a = t->insert(d, canceller.make());
    const timer_handle b = t->insert(d, log.make(1));
    const timer_handle c = t->insert(d + 5ms, log.make(2));
    t->insert(d + 6ms, log.make(3));
    const timer_handle e = t->insert(d + 1h, log.make(4));
    canceller.targets = {b, c, e, a};
    const std::size_t fired = env.fire_at(*t, d + 7ms);
    require(canceller.wakes == 1, "the timer whose waker cancels others did not fire once");
    require(canceller.results == std::vector<bool>{true, true, true, false},
            "cancel() from a waker run by fire() did not return true for the three armed "
            "timers and false for the timer being fired");
    require(log.order == std::vector<std::uint32_t>{3},
            "timers cancelled by a waker during fire() still woke, or the one left did not");
    require(fired == 2,
            "fire() reported " + text(fired) + " timers; the canceller and the one it left fired");
    require(log.live == 0, "the cancelled timers' wakers were not dropped at once");
    require(!t->next_deadline().has_value(), "next_deadline() is set with every timer gone");
    require(env.fire_at(*t, d + 2h) == 0 && log.order.size() == 1,
            "a timer cancelled by a waker fired later");
    require(canceller.live == 0, "the fired timer's waker was kept");
}

void stale_handle_never_aliases(const timer_env& env) {
    counting_waker a, b;
    auto t = env.make();
    const instant now = env.now();
    const timer_handle first = t->insert(now + 1ms, a.make());
    env.fire_at(*t, now + 1ms);
    // The next insert may reuse the first one's storage: the old handle must not reach it.
    const timer_handle second = t->insert(now + 1s, b.make());
    require(first != second, "a new timer got the handle of one that already fired");
    require(!t->cancel(first), "a stale handle cancelled a newer timer");
    const timer_handle third = t->insert(now + 2s, b.make());
    require(t->cancel(third), "cancel() failed");
    const timer_handle fourth = t->insert(now + 2s, b.make());
    require(!t->cancel(third), "a cancelled timer's handle cancelled a newer one");
    require(!t->cancel(0) && !t->cancel(~timer_handle{0}), "garbage handles were accepted");
    env.fire_at(*t, now + 3s);
    require(b.wakes == 2,
            "timers went missing after stale cancels (fired " + text(b.wakes.load()) + " of 2)");
    (void)fourth;
}

void next_deadline_ordering(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    require(!t->next_deadline().has_value(), "next_deadline() is set with no timer armed");
    const instant now = env.now();
    const instant d100 = now + 100ms, d200 = now + 200ms, d300 = now + 300ms;
    t->insert(d300, w.make());
    const timer_handle h100 = t->insert(d100, w.make());
    t->insert(d200, w.make());
    auto check = [&](instant expected, const char* when) {
        const auto next = t->next_deadline();
        require(next.has_value(), std::string("next_deadline() empty ") + when);
        require(*next >= expected, std::string("next_deadline() is early ") + when + " by " +
                                       ns_text(expected - *next));
        require(*next <= expected + resolution, std::string("next_deadline() is late ") + when +
                                                    " by " + ns_text(*next - expected));
    };
    check(d100, "with 100/200/300 ms armed");
    require(t->cancel(h100), "cancel failed");
    check(d200, "after cancelling the earliest");
    env.fire_at(*t, d200);
    check(d300, "after the 200 ms timer fired");
    env.fire_at(*t, d300);
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
}

void ties_fire_in_insertion_order(const timer_env& env) {
    wake_log log;
    auto t = env.make();
    const instant now = env.now();
    const instant near = now + 50ms, middle = now + 40min, far = now + 3h;
    const instant beyond = now + 1000 * 24h;  // past a wheel's top level, in its overflow
    std::vector<instant> deadlines;
    auto arm = [&](instant d) {
        const auto id = static_cast<std::uint32_t>(deadlines.size());
        deadlines.push_back(d);
        t->insert(d, log.make(id));
    };
    auto expect = [&](instant d, std::size_t from, const char* which) {
        std::vector<std::uint32_t> expected;
        for (std::uint32_t id = 0; id < deadlines.size(); ++id)
            if (deadlines[id] == d) expected.push_back(id);
        const std::vector<std::uint32_t> woken(
            log.order.begin() + static_cast<long>(from),
            log.order.begin() + static_cast<long>(from) + static_cast<long>(expected.size()));
        require(woken == expected, std::string("timers sharing the ") + which +
                                       " deadline did not wake in insertion order");
    };
    for (int i = 0; i < 300; ++i)
        arm(i % 3 == 0 ? near : i % 3 == 1 ? middle : far);
    require(env.fire_at(*t, now + 2h) == 200, "fire(now + 2 h) did not fire the 200 timers due");
    expect(near, 0, "50 ms");
    expect(middle, 100, "40 min");
    // More at the 3 h deadline, armed after the driver moved on: behind the first ones.
    for (int i = 0; i < 100; ++i)
        arm(far);
    require(env.fire_at(*t, far) == 200, "fire(3 h) did not fire the 200 timers due");
    expect(far, 200, "3 h");
    for (int i = 0; i < 50; ++i)
        arm(beyond);
    require(env.fire_at(*t, now + 900 * 24h) == 0, "a timer 1000 days away fired after 900");
    for (int i = 0; i < 50; ++i)
        arm(beyond);
    require(env.fire_at(*t, beyond) == 100, "fire(1000 days) did not fire the 100 timers due");
    expect(beyond, 400, "1000 days");
    require(log.live == 0 && log.repeated == 0, "wakers were kept or woken twice");
}

void many_random_timers_fire_in_order(const timer_env& env) {
    constexpr int count = 100'000;
    std::int64_t step_now = 0;  // the `now` of the fire() in progress, stamped by each waker
    std::deque<counting_waker> wakers(count);
    auto t = env.make();
    std::mt19937_64 random(20240601);
    const instant start = env.now();
    std::uniform_int_distribution<std::int64_t> offset_ns(0, rtkit::duration(10min).count());
    std::vector<std::pair<instant, int>> armed;  // deadline, index; sorted below
    std::vector<timer_handle> handles(count);
    std::vector<bool> cancelled(count, false);
    for (int i = 0; i < count; ++i) {
        wakers[i].stamp_source = &step_now;
        const instant deadline = start + rtkit::duration(offset_ns(random));
        handles[i] = t->insert(deadline, wakers[i].make());
        armed.emplace_back(deadline, i);
    }
    for (int i = 0; i < count; i += 10) {
        require(t->cancel(handles[i]), "cancel of an armed timer failed");
        cancelled[i] = true;
    }
    std::sort(armed.begin(), armed.end());
    std::erase_if(armed, [&](const auto& a) { return cancelled[a.second]; });

    // Advance the clock in uneven steps past the last deadline.
    std::uniform_int_distribution<std::int64_t> step_ns(1, 2'000'000'000);
    instant now = start;
    std::size_t next_due = 0;  // armed[next_due] is the earliest not yet fired
    std::size_t fired_total = 0;
    std::vector<std::int64_t> fire_nows;
    while (next_due < armed.size()) {
        const auto next = t->next_deadline();
        require(next.has_value(), "next_deadline() empty while timers are armed");
        require(*next >= armed[next_due].first,
                "next_deadline() is before the earliest armed deadline");
        require(*next <= armed[next_due].first + resolution,
                "next_deadline() is later than the earliest armed deadline by more than 10 ms");
        now += rtkit::duration(step_ns(random));
        step_now = now.time_since_epoch().count();
        fire_nows.push_back(step_now);
        fired_total += env.fire_at(*t, now);
        while (next_due < armed.size() && armed[next_due].first <= now)
            ++next_due;
    }
    require(fired_total == armed.size(),
            "fire() reported " + text(fired_total) + " timers, expected " + text(armed.size()));
    // Each timer fired exactly once, in the first fire() whose now reached its deadline.
    for (const auto& [deadline, i] : armed) {
        const counting_waker& w = wakers[i];
        if (w.wakes != 1)
            require(false, "timer " + text(i) + " fired " + text(w.wakes.load()) + " times");
        const std::int64_t due = deadline.time_since_epoch().count();
        const std::int64_t first_chance =
            *std::lower_bound(fire_nows.begin(), fire_nows.end(), due);
        if (w.last_stamp < due) require(false, "timer " + text(i) + " fired before its deadline");
        if (w.last_stamp != first_chance)
            require(false, "timer " + text(i) + " fired " +
                               ns_text(rtkit::duration(w.last_stamp - first_chance)) +
                               " after the first fire() that had reached its deadline");
    }
    for (int i = 0; i < count; i += 10)
        if (wakers[i].wakes != 0) require(false, "cancelled timer " + text(i) + " fired");
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
}

void a_million_timers(const timer_env& env) {
    constexpr std::uint32_t count = 1'000'000;
    wake_log log;
    auto t = env.make();
    const instant start = env.now();
    std::mt19937_64 random(1'000'003);
    std::uniform_int_distribution<std::int64_t> offset_ns(0, rtkit::duration(1h).count());
    std::vector<instant> deadlines(count);
    std::vector<timer_handle> handles(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        // Every 16th shares the previous one's deadline.
        deadlines[i] = i % 16 == 15 ? deadlines[i - 1] : start + duration(offset_ns(random));
        handles[i] = t->insert(deadlines[i], log.make(i));
    }
    for (std::uint32_t i = 3; i < count; i += 4)
        if (!t->cancel(handles[i]))
            require(false, "cancel() of armed timer " + text(i) + " failed");
    require(log.live == count - count / 4, "cancel() did not drop the cancelled timers' wakers");

    // 100 uneven steps past the last deadline, each one fire().
    std::vector<instant> steps;
    std::uniform_int_distribution<std::int64_t> step_ns(1, rtkit::duration(72s).count());
    for (instant at = start; at <= start + 1h;) {
        at += duration(step_ns(random));
        steps.push_back(at);
    }
    std::size_t fired = 0;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        log.call = static_cast<std::int32_t>(s);
        const std::size_t from = log.order.size();
        const std::size_t n = env.fire_at(*t, steps[s]);
        require(n == log.order.size() - from,
                "fire() reported " + text(n) + " timers and woke " + text(log.order.size() - from));
        require_wake_order(log.order, from, deadlines);
        fired += n;
    }
    require(fired == count - count / 4,
            "fired " + text(fired) + " of the " + text(count - count / 4) + " timers armed");
    require(log.repeated == 0, "timers woke more than once");
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::int32_t first_chance = static_cast<std::int32_t>(
            std::lower_bound(steps.begin(), steps.end(), deadlines[i]) - steps.begin());
        const std::int32_t expected = i % 4 == 3 ? -1 : first_chance;
        if (log.woken_in[i] != expected)
            require(false, "timer " + text(i) + (i % 4 == 3 ? " was cancelled but" : "") +
                               " woke in fire() number " + std::to_string(log.woken_in[i]) +
                               ", expected " + std::to_string(expected) +
                               " (the first whose now reached its deadline)");
    }
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
    require(log.live == 0, "wakers were kept");
    detail::note("1,000,000 timers, a quarter cancelled, fired in " + text(steps.size()) +
                 " steps");
}

void far_deadlines_cascade(const timer_env& env) {
    auto t = env.make();
    const instant start = env.now();
    const rtkit::duration offsets[] = {1s, 70s, 5min, 3h, 49h, 400 * 24h, 1000 * 24h, 3000 * 24h};
    std::deque<counting_waker> wakers(std::size(offsets));
    // Inserted out of order, then fired by a clock walking up to each one.
    for (std::size_t i = std::size(offsets); i-- > 0;)
        t->insert(start + offsets[i], wakers[i].make());
    for (std::size_t i = 0; i < std::size(offsets); ++i) {
        const instant deadline = start + offsets[i];
        const auto next = t->next_deadline();
        require(
            next && *next >= deadline && *next <= deadline + resolution,
            "next_deadline() does not match the timer " + text(offsets[i].count()) + " ns away");
        env.fire_at(*t, deadline - 1ms);
        require(wakers[i].wakes == 0,
                "a timer " + text(offsets[i].count() / 1'000'000) + " ms away fired 1 ms early");
        env.fire_at(*t, deadline);
        require(wakers[i].wakes == 1, "a timer " + text(offsets[i].count() / 1'000'000) +
                                          " ms away did not fire at its deadline");
        for (std::size_t j = i + 1; j < std::size(offsets); ++j)
            require(wakers[j].wakes == 0, "a later timer fired together with an earlier one");
    }
}

void virtual_clock_jumps(const timer_env& env) {
    wake_log log;
    auto t = env.make();
    std::mt19937_64 random(37);
    std::vector<instant> deadlines;
    std::multimap<instant, std::uint32_t> armed;  // what must still fire
    auto arm = [&](instant d) {
        const auto id = static_cast<std::uint32_t>(deadlines.size());
        deadlines.push_back(d);
        armed.emplace(d, id);
        t->insert(d, log.make(id));
    };
    // A runtime on a virtual clock with nothing else to do jumps to
    // next_deadline() and fires: every jump must fire what is due, and at
    // least one timer, or the clock would stay where it is.
    const instant start = env.now();
    std::uniform_int_distribution<std::int64_t> spread(0, rtkit::duration(5h).count());
    for (int i = 0; i < 300; ++i)
        arm(i % 5 == 4 ? deadlines[static_cast<std::size_t>(i) - 3]
                       : start + duration(spread(random)));
    int jumps = 0;
    instant fired_up_to = start;
    while (const auto next = t->next_deadline()) {
        require(!armed.empty(), "next_deadline() is set after every timer fired");
        const instant earliest = armed.begin()->first;
        require(*next >= earliest && *next <= earliest + resolution,
                "next_deadline() is " + ns_text(*next - earliest) +
                    " from the earliest armed deadline");
        const std::size_t from = log.order.size();
        const std::size_t n = env.fire_at(*t, *next);
        require(n > 0,
                "fire(next_deadline()) fired nothing: a clock that jumps to next_deadline() "
                "would never get past it");
        std::size_t due = 0;
        while (!armed.empty() && armed.begin()->first <= *next) {
            armed.erase(armed.begin());
            ++due;
        }
        require(
            n == due && log.order.size() - from == due,
            "a jump to next_deadline() fired " + text(n) + " timers, " + text(due) + " were due");
        require_wake_order(log.order, from, deadlines);
        fired_up_to = *next;
        ++jumps;
    }
    require(armed.empty(), "next_deadline() is empty with timers armed");

    // One big jump: hours of deadlines fire in one fire(), in order. (The real
    // clock is behind the instants fired so far: deadlines start after them,
    // as a runtime's would.)
    const instant later = std::max(env.now(), fired_up_to) + 1s;
    std::uniform_int_distribution<std::int64_t> wide(0, rtkit::duration(10h).count());
    const std::size_t first_big = deadlines.size();
    for (int i = 0; i < 10'000; ++i)
        arm(i % 8 == 7 ? deadlines.back() : later + duration(wide(random)));
    const instant jump_to = later + 6h;
    std::size_t due = 0;
    for (std::size_t id = first_big; id < deadlines.size(); ++id)
        due += deadlines[id] <= jump_to;
    const std::size_t from = log.order.size();
    const std::size_t n = env.fire_at(*t, jump_to);
    require(n == due && log.order.size() - from == due,
            "a 6 h jump fired " + text(n) + " timers, " + text(due) + " were due");
    require_wake_order(log.order, from, deadlines);
    while (!armed.empty() && armed.begin()->first <= jump_to)
        armed.erase(armed.begin());
    const auto next = t->next_deadline();
    require(next && *next >= armed.begin()->first && *next <= armed.begin()->first + resolution,
            "after the jump, next_deadline() is not the earliest deadline left");
    require(log.repeated == 0, "timers woke more than once");
    detail::note(text(jumps) + " jumps to next_deadline() fired 300 timers; one 6 h jump fired " +
                 text(due));
}

void handles_survive_reuse(const timer_env& env) {
    counting_waker w;
    auto t = env.make();
    const instant far = env.now() + 10s;
    timer_handle previous = t->insert(far, w.make());
    require(t->cancel(previous), "cancel failed");
    for (int i = 0; i < 10'000; ++i) {
        const timer_handle h = t->insert(far, w.make());
        require(h != previous, "insert after cancel returned the cancelled timer's handle");
        require(!t->cancel(previous), "a cancelled handle cancelled its successor");
        require(t->cancel(h), "cancel failed");
        previous = h;
    }
    require(w.live == 0 && w.wakes == 0, "insert/cancel cycles leaked or woke wakers");
}

void now_follows_the_clock(const timer_env& env) {
    auto t = env.make();
    const instant before = env.now();
    const instant read = t->now();
    const instant after = env.now();
    require(before <= read && read <= after, "now() is not the clock's time: it read " +
                                                 ns_text(read.time_since_epoch()) + " between " +
                                                 ns_text(before.time_since_epoch()) + " and " +
                                                 ns_text(after.time_since_epoch()));
    instant last = t->now();
    for (int i = 0; i < 10'000; ++i) {
        const instant now = t->now();
        if (now < last) require(false, "now() went back in time");
        last = now;
    }
    env.clock.wait_until(before + 5ms);
    require(t->now() - before >= 5ms, "now() did not advance with the clock across 5 ms");
}

/// Registers `Body` as a case that runs on each clock.
template <void (*Body)(const timer_env&)>
void on_each_clock(const detail::factory<timer_driver>& make) {
    detail::run_on_each_clock(make, Body);
}

}  // namespace

namespace detail {

const std::vector<test_case<timer_driver>>& timer_cases() {
    static const std::vector<test_case<timer_driver>> cases{
        {"fires_at_deadline_never_before", &on_each_clock<&fires_at_deadline_never_before>,
         "a timer fires at its deadline and never 1 ns before; waiting for `next_deadline()` and "
         "firing with the clock's time fires it"},
        {"past_deadline_fires_at_next_fire", &on_each_clock<&past_deadline_fires_at_next_fire>,
         "a deadline in the past fires at the next `fire()`"},
        {"deadlines_in_the_past_and_at_the_end",
         &on_each_clock<&deadlines_in_the_past_and_at_the_end>,
         "deadlines at `instant::min()`, in the past and now fire at once, in order; at "
         "`instant::max()` they stay armed (no wrap into the past) until `fire(instant::max())`, "
         "equal ones in insertion order"},
        {"cancel_prevents_firing", &on_each_clock<&cancel_prevents_firing>,
         "a timer cancelled before its deadline never fires, and its waker is dropped"},
        {"cancel_after_fire_returns_false", &on_each_clock<&cancel_after_fire_returns_false>,
         "cancelling a timer that fired returns false"},
        {"cancel_from_a_waker_during_fire", &on_each_clock<&cancel_from_a_waker_during_fire>,
         "a waker run by `fire()` cancels timers due in the same `fire()` (they do not wake), a "
         "later one, and its own (false)"},
        {"stale_handle_never_aliases", &on_each_clock<&stale_handle_never_aliases>,
         "a stale handle never cancels a later timer"},
        {"next_deadline_ordering", &on_each_clock<&next_deadline_ordering>,
         "`next_deadline` is the earliest armed deadline, within the driver's resolution"},
        {"ties_fire_in_insertion_order", &on_each_clock<&ties_fire_in_insertion_order>,
         "timers with equal deadlines wake in insertion order: near, far, armed after the driver "
         "moved on, and 1000 days away"},
        {"many_random_timers_fire_in_order", &on_each_clock<&many_random_timers_fire_in_order>,
         "100,000 random timers each fire at their first chance"},
        {"a_million_timers", &on_each_clock<&a_million_timers>,
         "1,000,000 timers (a quarter cancelled, some tied) fire once each at their first chance, "
         "in order, over 100 steps"},
        {"far_deadlines_cascade", &on_each_clock<&far_deadlines_cascade>,
         "deadlines from 1 s to 3000 days (cascading and overflow)"},
        {"virtual_clock_jumps", &on_each_clock<&virtual_clock_jumps>,
         "jumping to `next_deadline()` and firing always fires what is due and at least one timer; "
         "one 6 h jump fires everything due, in order"},
        {"handles_survive_reuse", &on_each_clock<&handles_survive_reuse>,
         "handles stay distinct while slots are reused"},
        {"now_follows_the_clock", &on_each_clock<&now_follows_the_clock>,
         "`now()` is the clock's time (the bound one, or `steady_clock`), never goes back, and "
         "moves with it"},
    };
    return cases;
}

}  // namespace detail

report run_timer_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<timer_driver>(file, options, detail::timer_cases());
}

}  // namespace rtkit::conformance
