// The timer driver conformance suite. fire() takes `now` as a parameter, so
// most cases drive a fake clock: deadlines days away cost no waiting.
#include <algorithm>
#include <chrono>
#include <deque>
#include <random>
#include <thread>

#include "counting_waker.hpp"
#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {
namespace {

using namespace std::chrono_literals;
using detail::require;
using testing::counting_waker;

/// How far past the true earliest deadline next_deadline() may be (the
/// driver's resolution); more than this would oversleep.
constexpr rtkit::duration resolution_slack = 10ms;

std::string ns_text(rtkit::duration d) {
    return std::to_string(d.count()) + " ns";
}

void fires_at_deadline_never_before(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    const instant deadline = t->now() + 10ms + 123us;
    t->insert(deadline, w.make());
    require(t->fire(deadline - 1ns) == 0 && w.wakes == 0, "a timer fired 1 ns before its deadline");
    require(t->fire(deadline) == 1, "fire(deadline) did not report the timer it fired");
    require(w.wakes == 1, "fire(deadline) did not wake the timer due at exactly that instant");
    require(w.live == 0, "a fired timer kept its waker");
    require(t->fire(deadline + 1s) == 0 && w.wakes == 1, "a timer fired twice");

    // On the real clock: the waker runs only once now() has passed the deadline.
    counting_waker real;
    const instant soon = t->now() + 20ms;
    t->insert(soon, real.make());
    instant fired_at{};
    const instant give_up = t->now() + 5s;
    while (real.wakes == 0 && t->now() < give_up) {
        const instant now = t->now();
        if (t->fire(now) > 0) fired_at = now;
        std::this_thread::sleep_for(1ms);
    }
    require(real.wakes == 1, "a 20 ms timer did not fire within 5 s on the real clock");
    require(fired_at >= soon, "a timer fired " + ns_text(soon - fired_at) + " early");
}

void past_deadline_fires_at_next_fire(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    const instant now = t->now();
    t->insert(now - 1s, w.make());
    require(t->next_deadline().has_value(), "next_deadline() is empty with a timer armed");
    require(*t->next_deadline() <= now, "next_deadline() of an overdue timer is in the future");
    t->fire(now);
    require(w.wakes == 1, "a deadline in the past did not fire at the next fire()");
}

void cancel_prevents_firing(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    const instant deadline = t->now() + 50ms;
    const timer_handle h = t->insert(deadline, w.make());
    require(t->cancel(h), "cancel() of an armed timer returned false");
    require(w.live == 0, "cancel() did not drop the waker");
    require(w.wakes == 0, "cancel() woke the waker");
    require(!t->next_deadline().has_value(), "next_deadline() still set after the only cancel");
    t->fire(deadline + 1h);
    require(w.wakes == 0, "a cancelled timer fired");
    require(!t->cancel(h), "a second cancel() returned true");
}

void cancel_after_fire_returns_false(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    const instant deadline = t->now() + 5ms;
    const timer_handle h = t->insert(deadline, w.make());
    t->fire(deadline);
    require(w.wakes == 1, "the timer did not fire");
    require(!t->cancel(h), "cancel() after the timer fired returned true");
}

void stale_handle_never_aliases(const detail::factory<timer_driver>& make) {
    counting_waker a, b;
    auto t = make();
    const instant now = t->now();
    const timer_handle first = t->insert(now + 1ms, a.make());
    t->fire(now + 1ms);
    // The next insert may reuse the first one's storage: the old handle must not reach it.
    const timer_handle second = t->insert(now + 1s, b.make());
    require(first != second, "a new timer got the handle of one that already fired");
    require(!t->cancel(first), "a stale handle cancelled a newer timer");
    const timer_handle third = t->insert(now + 2s, b.make());
    require(t->cancel(third), "cancel() failed");
    const timer_handle fourth = t->insert(now + 2s, b.make());
    require(!t->cancel(third), "a cancelled timer's handle cancelled a newer one");
    require(!t->cancel(0) && !t->cancel(~timer_handle{0}), "garbage handles were accepted");
    t->fire(now + 3s);
    require(b.wakes == 2, "timers went missing after stale cancels (fired " +
                              std::to_string(b.wakes.load()) + " of 2)");
    (void)fourth;
}

void next_deadline_ordering(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    require(!t->next_deadline().has_value(), "next_deadline() is set with no timer armed");
    const instant now = t->now();
    const instant d100 = now + 100ms, d200 = now + 200ms, d300 = now + 300ms;
    t->insert(d300, w.make());
    const timer_handle h100 = t->insert(d100, w.make());
    t->insert(d200, w.make());
    auto check = [&](instant expected, const char* when) {
        const auto next = t->next_deadline();
        require(next.has_value(), std::string("next_deadline() empty ") + when);
        require(*next >= expected, std::string("next_deadline() is early ") + when + " by " +
                                       ns_text(expected - *next));
        require(
            *next <= expected + resolution_slack,
            std::string("next_deadline() is late ") + when + " by " + ns_text(*next - expected));
    };
    check(d100, "with 100/200/300 ms armed");
    require(t->cancel(h100), "cancel failed");
    check(d200, "after cancelling the earliest");
    t->fire(d200);
    check(d300, "after the 200 ms timer fired");
    t->fire(d300);
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
}

void many_random_timers_fire_in_order(const detail::factory<timer_driver>& make) {
    constexpr int count = 100'000;
    std::int64_t step_now = 0;  // the `now` of the fire() in progress, stamped by each waker
    std::deque<counting_waker> wakers(count);
    auto t = make();
    std::mt19937_64 random(20240601);
    const instant start = t->now();
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

    // Advance a fake clock in uneven steps past the last deadline.
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
        require(*next <= armed[next_due].first + resolution_slack,
                "next_deadline() is later than the earliest armed deadline by more than 10 ms");
        now += rtkit::duration(step_ns(random));
        step_now = now.time_since_epoch().count();
        fire_nows.push_back(step_now);
        fired_total += t->fire(now);
        while (next_due < armed.size() && armed[next_due].first <= now)
            ++next_due;
    }
    require(fired_total == armed.size(), "fire() reported " + std::to_string(fired_total) +
                                             " timers, expected " + std::to_string(armed.size()));
    // Each timer fired exactly once, in the first fire() whose now reached its deadline.
    for (const auto& [deadline, i] : armed) {
        const counting_waker& w = wakers[i];
        if (w.wakes != 1)
            require(false, "timer " + std::to_string(i) + " fired " +
                               std::to_string(w.wakes.load()) + " times");
        const std::int64_t due = deadline.time_since_epoch().count();
        const std::int64_t first_chance =
            *std::lower_bound(fire_nows.begin(), fire_nows.end(), due);
        if (w.last_stamp < due)
            require(false, "timer " + std::to_string(i) + " fired before its deadline");
        if (w.last_stamp != first_chance)
            require(false, "timer " + std::to_string(i) + " fired " +
                               ns_text(rtkit::duration(w.last_stamp - first_chance)) +
                               " after the first fire() that had reached its deadline");
    }
    for (int i = 0; i < count; i += 10)
        if (wakers[i].wakes != 0) require(false, "cancelled timer " + std::to_string(i) + " fired");
    require(!t->next_deadline().has_value(), "next_deadline() is set after every timer fired");
}

void far_deadlines_cascade(const detail::factory<timer_driver>& make) {
    auto t = make();
    const instant start = t->now();
    const rtkit::duration offsets[] = {1s, 70s, 5min, 3h, 49h, 400 * 24h, 1000 * 24h, 3000 * 24h};
    std::deque<counting_waker> wakers(std::size(offsets));
    // Inserted out of order, then fired by a fake clock walking up to each one.
    for (std::size_t i = std::size(offsets); i-- > 0;)
        t->insert(start + offsets[i], wakers[i].make());
    for (std::size_t i = 0; i < std::size(offsets); ++i) {
        const instant deadline = start + offsets[i];
        const auto next = t->next_deadline();
        require(next && *next >= deadline && *next <= deadline + resolution_slack,
                "next_deadline() does not match the timer " + std::to_string(offsets[i].count()) +
                    " ns away");
        t->fire(deadline - 1ms);
        require(wakers[i].wakes == 0, "a timer " + std::to_string(offsets[i].count() / 1'000'000) +
                                          " ms away fired 1 ms early");
        t->fire(deadline);
        require(wakers[i].wakes == 1, "a timer " + std::to_string(offsets[i].count() / 1'000'000) +
                                          " ms away did not fire at its deadline");
        for (std::size_t j = i + 1; j < std::size(offsets); ++j)
            require(wakers[j].wakes == 0, "a later timer fired together with an earlier one");
    }
}

void handles_survive_reuse(const detail::factory<timer_driver>& make) {
    counting_waker w;
    auto t = make();
    const instant far = t->now() + 10s;
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

void clock_is_monotonic(const detail::factory<timer_driver>& make) {
    auto t = make();
    instant last = t->now();
    for (int i = 0; i < 10'000; ++i) {
        const instant now = t->now();
        if (now < last) require(false, "now() went back in time");
        last = now;
    }
    const instant before = t->now();
    std::this_thread::sleep_for(5ms);
    require(t->now() - before >= 5ms, "now() did not advance across a 5 ms sleep");
}

}  // namespace

namespace detail {

const std::vector<test_case<timer_driver>>& timer_cases() {
    static const std::vector<test_case<timer_driver>> cases{
        {"fires_at_deadline_never_before", &fires_at_deadline_never_before},
        {"past_deadline_fires_at_next_fire", &past_deadline_fires_at_next_fire},
        {"cancel_prevents_firing", &cancel_prevents_firing},
        {"cancel_after_fire_returns_false", &cancel_after_fire_returns_false},
        {"stale_handle_never_aliases", &stale_handle_never_aliases},
        {"next_deadline_ordering", &next_deadline_ordering},
        {"many_random_timers_fire_in_order", &many_random_timers_fire_in_order},
        {"far_deadlines_cascade", &far_deadlines_cascade},
        {"handles_survive_reuse", &handles_survive_reuse},
        {"clock_is_monotonic", &clock_is_monotonic},
    };
    return cases;
}

}  // namespace detail

report run_timer_conformance(const std::filesystem::path& file, const option_table& options) {
    return detail::run_cases<timer_driver>(file, options, detail::timer_cases());
}

}  // namespace rtkit::conformance
