// What the built-in plugins promise beyond their kind's conformance suite:
// the suites again under non-default options (the wheel's geometry too),
// uring's completion cases run (not skipped), and three_lane's exact fairness.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "rtkit/plugin_loader.hpp"

namespace {

const std::filesystem::path plugin_dir = RTKIT_TEST_PLUGIN_DIR;

void check_passed(const rtkit::conformance::report& r) {
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK_MESSAGE(r.load_error.empty(), r.load_error);
    CHECK_FALSE(r.cases.empty());
    CHECK(r.passed());
}

struct task : rtkit::schedulable {
    char lane_tag;
};

/// Pops everything and spells the lanes in pop order.
std::string pop_order(rtkit::lane_policy& p) {
    std::string order;
    while (rtkit::schedulable* s = p.pop())
        order += static_cast<task*>(s)->lane_tag;
    return order;
}

std::shared_ptr<rtkit::lane_policy> three_lane(std::int64_t cancel_limit) {
    return rtkit::plugin_loader().create_by_name<rtkit::lane_policy>(
        "three_lane", {{"cancel_streak_limit", cancel_limit}});
}

}  // namespace

TEST_CASE("epoll passes its suite fetching one event per poll") {
    check_passed(rtkit::conformance::run_reactor_conformance(
        plugin_dir / "rtkit_reactor_epoll.so", {{"events_per_poll", std::int64_t{1}}}));
}

TEST_CASE(
    "uring runs and passes the completion cases - also with whole recvs and plain files - and "
    "with a single issuer") {
    const rtkit::option_table whole_recvs{{"recv_buffers", std::int64_t{0}},
                                          {"fixed_files", std::int64_t{0}}};
    const rtkit::option_table single_issuer{{"single_issuer", true}};
    for (const rtkit::option_table& options : {rtkit::option_table{}, whole_recvs, single_issuer}) {
        const auto r = rtkit::conformance::run_reactor_conformance(
            plugin_dir / "rtkit_reactor_uring.so", options);
        check_passed(r);
        int completion_cases = 0;
        for (const auto& c : r.cases) {
            if (c.name.find("completion_") == std::string::npos) continue;
            ++completion_cases;
            INFO(c.name, ": ", c.message);
            CHECK(c.outcome == rtkit::conformance::verdict::passed);  // run, not skipped
        }
        CHECK(completion_cases == 3);
    }
}

TEST_CASE("wheel passes its suite with a 10 us tick (overflow after 7.9 days)") {
    check_passed(rtkit::conformance::run_timer_conformance(plugin_dir / "rtkit_timer_wheel.so",
                                                           {{"tick_us", std::int64_t{10}}}));
}

TEST_CASE("wheel passes its suite with 3 levels of 8 slots (overflow lists after 512 ms)") {
    check_passed(rtkit::conformance::run_timer_conformance(
        plugin_dir / "rtkit_timer_wheel.so",
        {{"levels", std::int64_t{3}}, {"slots_per_level", std::int64_t{8}}}));
}

TEST_CASE("wheel refuses a slots_per_level that is not a power of two - saying which are") {
    std::string error;
    try {
        rtkit::plugin_loader().create_by_name<rtkit::timer_driver>(
            "wheel", {{"slots_per_level", std::int64_t{48}}});
    } catch (const rtkit::plugin_error& e) {
        error = e.what();
    }
    CHECK(error.find("failed to start: slots_per_level must be a power of two from 2 to 64 (2, "
                     "4, 8, 16, 32 or 64), not 48") != std::string::npos);
}

TEST_CASE("heap passes its suite as a binary heap and as a 16-ary one") {
    for (const std::int64_t arity : {2, 16}) {
        INFO("arity " << arity);
        check_passed(rtkit::conformance::run_timer_conformance(plugin_dir / "rtkit_timer_heap.so",
                                                               {{"arity", arity}}));
    }
}

TEST_CASE("three_lane passes its suite with a streak limit of 1") {
    check_passed(rtkit::conformance::run_lanes_conformance(
        plugin_dir / "rtkit_lanes_three_lane.so", {{"cancel_streak_limit", std::int64_t{1}}}));
}

TEST_CASE("three_lane: cancel_streak_limit cancel pops - then one waiting ready task") {
    auto p = three_lane(3);
    std::vector<task> tasks(12);
    for (int i = 0; i < 10; ++i) {
        tasks[i].lane_tag = 'C';
        p->push(&tasks[i], rtkit::lane::cancel);
    }
    for (int i = 10; i < 12; ++i) {
        tasks[i].lane_tag = 'R';
        p->push(&tasks[i], rtkit::lane::ready);
    }
    CHECK(pop_order(*p) == "CCCRCCCRCCCC");
}

TEST_CASE("three_lane: the ready lane is first in first out") {
    auto p = three_lane(16);
    std::vector<task> tasks(100);
    for (auto& t : tasks)
        p->push(&t, rtkit::lane::ready);
    for (auto& t : tasks)
        CHECK(p->pop() == &t);
}

TEST_CASE("three_lane: steal takes the oldest ready tasks") {
    auto p = three_lane(16);
    std::vector<task> tasks(5);
    for (auto& t : tasks)
        p->push(&t, rtkit::lane::ready);
    rtkit::schedulable* out[2];
    REQUIRE(p->steal(out, 2) == 2);
    CHECK(out[0] == &tasks[0]);
    CHECK(out[1] == &tasks[1]);
    CHECK(p->pop() == &tasks[2]);
}

TEST_CASE("three_lane: steal takes the cancel lane first - then the oldest ready tasks") {
    auto p = three_lane(16);
    std::vector<task> tasks(4);
    p->push(&tasks[0], rtkit::lane::ready);
    p->push(&tasks[1], rtkit::lane::cancel);
    p->push(&tasks[2], rtkit::lane::ready);
    p->push(&tasks[3], rtkit::lane::cancel);
    rtkit::schedulable* out[3];
    REQUIRE(p->steal(out, 3) == 3);
    CHECK(out[0] == &tasks[1]);
    CHECK(out[1] == &tasks[3]);
    CHECK(out[2] == &tasks[0]);
    CHECK(p->pop() == &tasks[2]);
    CHECK(p->size() == 0);
}
