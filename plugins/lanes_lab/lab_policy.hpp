#pragma once
// rtkit_lanes::lab_policy: picks the next entry at random from a seeded
// generator, to explore schedules reproducibly.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"
#include "seeded_random.hpp"

namespace rtkit_lanes {

/// Each pop() picks uniformly at random among the queued entries, both lanes
/// alike, from a generator seeded by the `seed` option: the same seed and the
/// same sequence of calls give the same picks on every machine.
///
/// Nothing may allocate after creation, so the candidates are a window, an
/// array of `window` entries allocated up front; entries pushed while it is
/// full wait in an intrusive FIFO (through schedulable::lane_next) and move
/// into the window, oldest first, as it empties. Every window entry was pushed
/// before every waiting one, so "uniformly" means: among the min(size(),
/// window) queued entries pushed earliest.
class lab_policy final : public rtkit::lane_policy, public rtkit::lanes_fairness {
  public:
    /// From the plugin options seed and window.
    explicit lab_policy(const rtkit::plugin_options& options);
    lab_policy(std::uint64_t seed, std::size_t window);

    void push(rtkit::schedulable* entry, rtkit::lane which) noexcept override;
    rtkit::schedulable* pop() noexcept override;
    std::size_t steal(rtkit::schedulable** out, std::size_t max) noexcept override;
    std::size_t size() const noexcept override { return in_window_ + waiting_; }

    void* query_interface(const char* name) noexcept override;
    std::size_t max_pops_before(rtkit::lane, std::size_t, std::size_t) const noexcept override {
        return no_bound;
    }
    std::size_t random_window() const noexcept override { return window_.size(); }

  private:
    /// Takes window_[i] out, filling its place from the end of the window and
    /// the end of the window from the waiting FIFO.
    rtkit::schedulable* take(std::size_t i) noexcept;

    seeded_random random_;
    std::vector<rtkit::schedulable*> window_;  ///< the first in_window_ are queued
    std::size_t in_window_ = 0;
    rtkit::schedulable* waiting_head_ = nullptr;  ///< pushed while the window was full
    rtkit::schedulable* waiting_tail_ = nullptr;
    std::size_t waiting_ = 0;
};

}  // namespace rtkit_lanes
