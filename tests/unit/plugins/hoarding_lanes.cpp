// A lane plugin for the multi-thread tests: the real three-lane policy, except
// that it gives thieves nothing. The interface allows that (steal() gives "up
// to" max entries), so the kernel must cope: a worker that runs dry next to a
// busy one holding such entries must park, not ask again and again.
#include "plugin_control.hpp"
#include "rtkit/plugin.hpp"
#include "three_lane_policy.hpp"

namespace {

rtkit::test::plugin_control control;

class hoarding_lanes final : public rtkit::lane_policy {
  public:
    explicit hoarding_lanes(const rtkit::plugin_options&) {}
    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override {
        lanes_.push(entry, which);
    }
    rtkit::schedulable* pop() noexcept override { return lanes_.pop(); }
    std::size_t steal(rtkit::schedulable**, std::size_t) noexcept override {
        control.note_steal_request();
        return 0;
    }
    std::size_t size() const noexcept override { return lanes_.size(); }

  private:
    rtkit_lanes::three_lane_policy lanes_{16, 16};
};

constexpr rtkit_plugin_descriptor hoarding_lanes_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, hoarding_lanes>(
        "hoarding", "0.0.1", "test lanes: three_lane, giving thieves nothing", nullptr, 0);

}  // namespace

RTKIT_TEST_EXPORT_PLUGIN_CONTROL(control)
RTKIT_EXPORT_PLUGIN(hoarding_lanes_descriptor)
