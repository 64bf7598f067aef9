#pragma once
// rtkit::interp::interval_object: a script's interval, on rtkit::interval.
#include <chrono>
#include <string>

#include <rtkit/interval.hpp>
#include <rtkit/sync/mutex.hpp>
#include <rtkit/task.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// Ticks every period on the runtime's timers: `tick I` waits for the next
/// tick and gives when it was due, as time since the script started (as
/// `now` gives). Ticks taken late come in a burst, or, as asked, on a new
/// schedule (`delay`) or at the next tick of the old one (`skip`). Tasks
/// that share an interval take its ticks in turns.
class interval_object final : public script::object {
  public:
    /// Needs a task (the first tick is due now). `script_start` is the
    /// instant `now` counts from.
    interval_object(rtkit::instant script_start, rtkit::duration period,
                    rtkit::missed_tick_behavior behavior);

    /// Waits for the next tick; gives when it was due.
    rtkit::task<script::value> tick();

    std::string_view type_name() const noexcept override { return "an interval"; }
    std::string display() const override;
    std::vector<std::string_view> field_names() const override { return {"period"}; }
    script::value field(std::string_view name, script::source_pos where) const override;

  private:
    rtkit::instant script_start_;
    rtkit::duration period_;
    rtkit::sync::mutex<rtkit::interval> ticks_;  ///< one task ticks at a time
};

}  // namespace rtkit::interp
