// A timer plugin for the driver's failure tests: the real timing wheel, whose
// insert() throws when the test arms a fault.
#include "plugin_control.hpp"
#include "rtkit/plugin.hpp"
#include "timing_wheel.hpp"

namespace {

rtkit::test::plugin_control control;

class faulty_timer final : public rtkit::timer_driver {
  public:
    explicit faulty_timer(const rtkit::plugin_options&) {}
    rtkit::instant now() const noexcept override { return wheel_.now(); }
    rtkit::timer_handle insert(rtkit::instant deadline, rtkit::waker w) override {
        control.maybe_fail("faulty_timer: injected insert failure");
        control.note_insert(deadline);
        return wheel_.insert(deadline, std::move(w));
    }
    bool cancel(rtkit::timer_handle handle) noexcept override { return wheel_.cancel(handle); }
    std::optional<rtkit::instant> next_deadline() const noexcept override {
        return wheel_.next_deadline();
    }
    std::size_t fire(rtkit::instant now) override { return wheel_.fire(now); }

  private:
    rtkit_wheel::timing_wheel wheel_{std::chrono::milliseconds(1)};
};

constexpr rtkit_plugin_descriptor faulty_timer_descriptor =
    rtkit::make_plugin_descriptor<rtkit::timer_driver, faulty_timer>(
        "faulty_wheel", "0.0.1", "test timer: the wheel, with an insert that fails on demand",
        nullptr, 0);

}  // namespace

RTKIT_TEST_EXPORT_PLUGIN_CONTROL(control)
RTKIT_EXPORT_PLUGIN(faulty_timer_descriptor)
