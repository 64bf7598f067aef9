#include "activity_board.hpp"

#include <chrono>
#include <cstdio>

namespace rtkit {
namespace detail {

namespace {

using clock = std::chrono::steady_clock;

std::uint64_t micros_now_plus_one() noexcept {
    const auto since_epoch = clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(
               std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count()) +
           1;
}

const char* call_name(plugin_call call) noexcept {
    switch (call) {
        case plugin_call::reactor_poll:
            return "poll";
        case plugin_call::reactor_add:
            return "add";
        case plugin_call::reactor_watch:
            return "watch";
        case plugin_call::reactor_remove:
            return "remove";
        case plugin_call::timer_insert:
            return "insert";
        case plugin_call::timer_cancel:
            return "cancel";
        case plugin_call::timer_next_deadline:
            return "next_deadline";
        case plugin_call::timer_fire:
            return "fire";
        case plugin_call::none:
            break;
    }
    return "";
}

}  // namespace

std::uint64_t activity_slot::word_since_now(state what, plugin_call call) noexcept {
    // 56 bits of microseconds: 2,000 years of uptime.
    return word(what, call) | micros_now_plus_one() << 8;
}

activity_slot& activity_board::add_worker() {
    slots_.push_back(std::make_unique<activity_slot>());
    return *slots_.back();
}

void activity_board::name_plugins(std::string reactor, std::string timer) {
    reactor_name_ = std::move(reactor);
    timer_name_ = std::move(timer);
}

void activity_board::mark_all(worker_activity::state what) noexcept {
    for (const auto& s : slots_)
        s->write(activity_slot::word(what));
}

std::vector<worker_activity> activity_board::read() const {
    using state = worker_activity::state;
    std::vector<worker_activity> entries(slots_.size());
    const std::uint64_t now = micros_now_plus_one();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const std::uint64_t w = slots_[i]->read();
        worker_activity& e = entries[i];
        e.worker = i;
        e.what = activity_slot::state_of(w);
        e.call = call_name(activity_slot::call_of(w));
        if (e.what == state::in_reactor || e.what == state::waiting_for_reactor)
            e.plugin = reactor_name_;
        else if (e.what == state::in_timer)
            e.plugin = timer_name_;
        if (const std::uint64_t since = activity_slot::since_of(w))
            e.for_how_long = std::chrono::microseconds(now > since ? now - since : 0);
    }
    return entries;
}

}  // namespace detail

namespace {

std::string shown(std::chrono::nanoseconds d) {
    char text[32];
    const double ms = std::chrono::duration<double, std::milli>(d).count();
    if (ms >= 1000)
        std::snprintf(text, sizeof text, "%.1fs", ms / 1000);
    else
        std::snprintf(text, sizeof text, "%.1fms", ms);
    return text;
}

/// " for 30.2s", or nothing for an entry that is not timed.
std::string lasting(const worker_activity& e) {
    return e.for_how_long ? " for " + shown(*e.for_how_long) : "";
}

}  // namespace

std::vector<worker_activity> runtime_activity::snapshot() const {
    return static_cast<const detail::activity_board*>(this)->read();
}

std::string runtime_activity::describe() const {
    using state = worker_activity::state;
    std::string text;
    for (const worker_activity& e : snapshot()) {
        const std::string worker = "worker " + std::to_string(e.worker);
        const std::string has = e.for_how_long ? " has been " : " is ";
        switch (e.what) {
            case state::running:
                continue;
            case state::parked:
                text += worker + has + "parked (waiting for work)" + lasting(e);
                break;
            case state::in_reactor:
            case state::in_timer:
                text += worker + has + "inside the " +
                        (e.what == state::in_reactor ? "reactor" : "timer") + " plugin \"" +
                        e.plugin + "\" (" + e.call + ")" + lasting(e);
                break;
            case state::waiting_for_reactor:
                text += worker + has + "waiting" + lasting(e) + " for the reactor \"" + e.plugin +
                        "\", which another thread is inside";
                break;
            case state::not_driven:
                text += worker + " is not driven by any thread (no block_on runs)";
                break;
            case state::stopped:
                text += worker + " has stopped (the runtime shut down)";
                break;
        }
        text += '\n';
    }
    return text;
}

}  // namespace rtkit
