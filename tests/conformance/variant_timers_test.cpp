// Timer drivers that each break one rule of rtkit/timer_driver.hpp on purpose
// (variant_timer.cpp): the timer suite fails the case of that rule, and its
// message says what went wrong. The same plain driver without a defect passes
// the suite (but for the million timers, which take seconds in its map),
// bound to the suite's clocks or (the "unbound" variant, which answers no
// rtkit.timer_clock.v1) on the real clock only.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"
#include "variant_support.hpp"

namespace {

/// Runs case `expected` of the timer suite (only that one: the million timers
/// take seconds) on variant `name` and checks that it failed with a message
/// holding `said`.
void check_timer_caught(const std::string& name, const std::string& expected,
                        const std::string& said) {
    std::vector<rtkit::conformance::detail::test_case<rtkit::timer_driver>> only;
    for (const auto& c : rtkit::conformance::detail::timer_cases())
        if ("timer." + std::string(c.name) == expected) only.push_back(c);
    REQUIRE(only.size() == 1);
    const auto r = rtkit::conformance::detail::run_cases(variant_file("timer", name), {}, only);
    MESSAGE(rtkit::conformance::format_report(r));
    REQUIRE(r.load_error.empty());
    const auto* c = find_case(r, expected);
    REQUIRE(c != nullptr);
    CHECK(c->outcome == rtkit::conformance::verdict::failed);
    CHECK_MESSAGE(c->message.find(said) != std::string::npos, c->message);
}

}  // namespace

/// Every case but the million timers, which the built-in drivers pass
/// (seconds in a map-based driver).
std::vector<rtkit::conformance::detail::test_case<rtkit::timer_driver>> all_but_the_million() {
    std::vector<rtkit::conformance::detail::test_case<rtkit::timer_driver>> cases;
    for (const auto& c : rtkit::conformance::detail::timer_cases())
        if (std::string(c.name) != "a_million_timers") cases.push_back(c);
    return cases;
}

TEST_CASE("timer variants: a plain correct driver passes the suite on both clocks") {
    const auto r = rtkit::conformance::detail::run_cases(variant_file("timer", "correct"), {},
                                                         all_but_the_million());
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.passed());
    CHECK(r.count(rtkit::conformance::verdict::passed) == r.cases.size());
}

TEST_CASE("timer variants: a driver that binds no clock passes on the real clock and says so") {
    const auto r = rtkit::conformance::detail::run_cases(variant_file("timer", "unbound"), {},
                                                         all_but_the_million());
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.passed());
    const auto* c = find_case(r, "timer.ties_fire_in_insertion_order");
    REQUIRE(c != nullptr);
    CHECK(c->message == "the real clock only: the driver does not answer rtkit.timer_clock.v1");
}

TEST_CASE("timer variants: ties woken in reverse insertion order are caught") {
    check_timer_caught("ties_reversed", "timer.ties_fire_in_insertion_order",
                       "did not wake in insertion order");
}

TEST_CASE("timer variants: a deadline at the end of the clock that wraps into the past is caught") {
    check_timer_caught("wraps_at_the_end", "timer.deadlines_in_the_past_and_at_the_end",
                       "wrapped around into the past");
}

TEST_CASE("timer variants: timers a waker cancelled during fire() that still wake are caught") {
    check_timer_caught("wakes_cancelled", "timer.cancel_from_a_waker_during_fire",
                       "cancel() from a waker run by fire() did not return true");
}

TEST_CASE("timer variants: timers lost beyond half a million armed are caught") {
    check_timer_caught("loses_beyond_a_limit", "timer.a_million_timers",
                       "cancel() of armed timer 500");
}

TEST_CASE("timer variants: a driver that fires nothing at next_deadline() stalls a jump - caught") {
    check_timer_caught("fires_only_after", "timer.virtual_clock_jumps",
                       "a clock that jumps to next_deadline() would never get past it");
}

TEST_CASE("timer variants: a driver that binds the clock and reads its own is caught") {
    check_timer_caught("ignores_clock", "timer.now_follows_the_clock",
                       "on the manual clock: now() is not the clock's time");
}
