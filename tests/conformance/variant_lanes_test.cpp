// Lane policies that each break one rule on purpose (variant_lanes.cpp): the
// lanes suite fails the case of that rule and says what went wrong; the same
// plain policies without a defect pass it.
#include <doctest/doctest.h>

#include <string>

#include "rtkit/conformance/conformance.hpp"
#include "variant_support.hpp"

namespace {

rtkit::conformance::report run_variant(const std::string& name) {
    const auto r = rtkit::conformance::run_lanes_conformance(variant_file("lanes", name));
    MESSAGE(rtkit::conformance::format_report(r));
    return r;
}

/// Checks that variant `name` fails case `expected` with a message holding `said`.
void check_lanes_caught(const std::string& name, const std::string& expected,
                        const std::string& said) {
    const auto r = run_variant(name);
    REQUIRE(r.load_error.empty());
    const auto* c = find_case(r, expected);
    REQUIRE(c != nullptr);
    CHECK(c->outcome == rtkit::conformance::verdict::failed);
    CHECK_MESSAGE(c->message.find(said) != std::string::npos, c->message);
}

}  // namespace

TEST_CASE("lanes variants: the plain policies pass - a stated bound and a random window") {
    const auto plain = run_variant("correct");
    CHECK(plain.passed());
    const auto* bound = find_case(plain, "lanes.stated_wait_bound_holds");
    REQUIRE(bound != nullptr);
    CHECK(bound->outcome == rtkit::conformance::verdict::passed);

    const auto random = run_variant("random");
    CHECK(random.passed());
    const auto* uniform = find_case(random, "lanes.random_picks_are_uniform");
    REQUIRE(uniform != nullptr);
    CHECK(uniform->outcome == rtkit::conformance::verdict::passed);
}

TEST_CASE("lanes variants: one cancel pop more than the stated streak is caught") {
    check_lanes_caught("streak_off_by_one", "lanes.stated_wait_bound_holds",
                       "more than the bound the policy states");
}

TEST_CASE("lanes variants: a LIFO ready lane under a FIFO's bound is caught") {
    check_lanes_caught("lifo", "lanes.stated_wait_bound_holds",
                       "more than the bound the policy states");
}

TEST_CASE("lanes variants: a steal that hands over one entry is caught") {
    check_lanes_caught("steals_one", "lanes.steal_hands_over_a_batch",
                       "a thief gets a batch, at least half of what it asks for");
}

TEST_CASE("lanes variants: a stolen entry that stays queued is caught") {
    check_lanes_caught("steals_a_copy", "lanes.every_entry_comes_back_exactly_once",
                       "size() drifted from the number of queued tasks");
}

TEST_CASE("lanes variants: round-robin picks that claim to be random are caught") {
    check_lanes_caught("round_robin", "lanes.random_picks_are_uniform",
                       "consecutive picks are not independent");
}

TEST_CASE("lanes variants: picks from outside the stated window are caught") {
    check_lanes_caught("outside_window", "lanes.random_picks_are_uniform",
                       "entries pushed before it: outside the window of the 8 pushed earliest");
}
