#include "interval_object.hpp"

namespace rtkit::interp {

interval_object::interval_object(rtkit::instant script_start, rtkit::duration period,
                                 rtkit::missed_tick_behavior behavior)
    : script_start_(script_start), period_(period), ticks_(period) {
    ticks_.get_unsynchronized().set_missed_ticks(behavior);
}

rtkit::task<script::value> interval_object::tick() {
    auto turn = co_await ticks_.lock();
    const rtkit::instant due = co_await turn->tick();
    co_return std::chrono::nanoseconds(due - script_start_);
}

std::string interval_object::display() const {
    return "interval(" + script::to_display(std::chrono::nanoseconds(period_)) + ")";
}

script::value interval_object::field(std::string_view name, script::source_pos where) const {
    if (name == "period") return std::chrono::nanoseconds(period_);
    return object::field(name, where);
}

}  // namespace rtkit::interp
