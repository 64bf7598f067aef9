// A lane plugin for the driver's failure tests: the real three-lane policy,
// whose push() throws when the test arms a fault.
#include "plugin_control.hpp"
#include "rtkit/plugin.hpp"
#include "three_lane_policy.hpp"

namespace {

rtkit::test::plugin_control control;

class faulty_lanes final : public rtkit::lane_policy {
  public:
    explicit faulty_lanes(const rtkit::plugin_options&) {}
    void push(rtkit::schedulable* task, rtkit::lane which, rtkit::instant deadline) override {
        control.maybe_fail("faulty_lanes: injected push failure");
        lanes_.push(task, which, deadline);
    }
    rtkit::schedulable* pop(rtkit::instant now) noexcept override { return lanes_.pop(now); }
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override {
        return lanes_.steal(out, max);
    }
    std::size_t size() const noexcept override { return lanes_.size(); }
    std::optional<rtkit::instant> next_deadline() const noexcept override {
        return lanes_.next_deadline();
    }

  private:
    rtkit_lanes::three_lane_policy lanes_{16, 6};
};

constexpr rtkit_plugin_descriptor faulty_lanes_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, faulty_lanes>(
        "faulty_three_lane", "0.0.1", "test lanes: three_lane, with a push that fails on demand",
        nullptr, 0);

}  // namespace

RTKIT_TEST_EXPORT_PLUGIN_CONTROL(control)
RTKIT_EXPORT_PLUGIN(faulty_lanes_descriptor)
