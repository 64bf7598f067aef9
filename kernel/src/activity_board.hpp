#pragma once
// The activity board behind rtkit::runtime_activity: one word per worker that
// says what the thread driving it is doing, written by that thread alone
// around its plugin calls and waits, and read by any thread with no lock.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rtkit/runtime_activity.hpp"

namespace rtkit::detail {

/// The plugin call a worker is inside (worker_activity::call).
enum class plugin_call : std::uint8_t {
    none,
    reactor_poll,
    reactor_add,
    reactor_watch,
    reactor_remove,
    timer_insert,
    timer_cancel,
    timer_next_deadline,
    timer_fire,
};

/// One worker's entry: what it does, in which plugin call, and since when,
/// in one word on a cache line of its own (its marks never take a line that
/// another worker writes). Only the thread driving the worker writes it;
/// that thread changes with the driver, under the driver's own hand-over.
class alignas(64) activity_slot {
  public:
    using state = worker_activity::state;

    /// A word saying `what` and `call`, not timed.
    static constexpr std::uint64_t word(state what, plugin_call call = plugin_call::none) noexcept {
        return static_cast<std::uint64_t>(what) | static_cast<std::uint64_t>(call) << 4;
    }
    /// The same, timed from now (reads the clock).
    static std::uint64_t word_since_now(state what, plugin_call call = plugin_call::none) noexcept;

    std::uint64_t read() const noexcept { return word_.load(std::memory_order_relaxed); }
    void write(std::uint64_t w) noexcept { word_.store(w, std::memory_order_relaxed); }

    static state state_of(std::uint64_t w) noexcept { return static_cast<state>(w & 0xF); }
    static plugin_call call_of(std::uint64_t w) noexcept {
        return static_cast<plugin_call>(w >> 4 & 0xF);
    }
    /// Microseconds on std::chrono::steady_clock plus one, or 0 when not timed.
    static std::uint64_t since_of(std::uint64_t w) noexcept { return w >> 8; }

  private:
    std::atomic<std::uint64_t> word_{word(state::running)};
};

/// The board of one runtime. The worker group holds it, and the runtime hands
/// it out as a std::shared_ptr<const runtime_activity>, so it outlives the
/// runtime for whoever still holds it.
class activity_board final : public runtime_activity {
  public:
    activity_board() = default;

    /// While the runtime is built, before any thread drives a worker or
    /// reads the board: the next worker's slot (its address stays).
    activity_slot& add_worker();
    /// While the runtime is built: the plugins' names, for the entries.
    void name_plugins(std::string reactor, std::string timer);

    activity_slot& slot(std::size_t worker) const noexcept { return *slots_[worker]; }

    /// Every worker's slot says `what` (shutdown: stopped).
    void mark_all(worker_activity::state what) noexcept;

    /// runtime_activity::snapshot().
    std::vector<worker_activity> read() const;

  private:
    std::vector<std::unique_ptr<activity_slot>> slots_;
    std::string reactor_name_;
    std::string timer_name_;
};

/// Marks what the thread driving a worker is doing for one scope, and puts
/// back what it said before (marks nest: a wait for the reactor inside a
/// task's poll goes back to running). A null slot marks nothing: the calling
/// thread drives no worker of the runtime whose plugin it calls.
class activity_mark {
  public:
    /// `timed`: a wait that may last, marked with the time it began (reads
    /// the clock). Not timed: a call that returns quickly unless the plugin
    /// is broken.
    activity_mark(activity_slot* slot, worker_activity::state what,
                  plugin_call call = plugin_call::none, bool timed = false) noexcept
        : slot_(slot) {
        if (!slot_) return;
        saved_ = slot_->read();
        slot_->write(timed ? activity_slot::word_since_now(what, call)
                           : activity_slot::word(what, call));
    }
    ~activity_mark() {
        if (slot_) slot_->write(saved_);
    }
    activity_mark(const activity_mark&) = delete;
    activity_mark& operator=(const activity_mark&) = delete;

  private:
    activity_slot* slot_;
    std::uint64_t saved_ = 0;
};

}  // namespace rtkit::detail
