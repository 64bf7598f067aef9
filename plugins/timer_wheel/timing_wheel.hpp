#pragma once
// rtkit_wheel::timing_wheel: a hierarchical timing wheel timer driver.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "rtkit/plugin.hpp"
#include "rtkit/timer_driver.hpp"

namespace rtkit_wheel {

/// Six levels of 64 slots over a fixed tick (1 ms by default), as in tokio.
///
/// A deadline maps to tick `floor((deadline - origin) / tick)`. Level L's slots
/// each span 64^L ticks; an entry sits at the level of the highest 6-bit group
/// in which its tick differs from the wheel's current tick, so level 0 holds the
/// next 64 ticks and the six levels cover 2^36 ticks (~795 days at 1 ms).
/// Deadlines beyond that wait in an overflow heap until the wheel reaches their
/// 2^36-tick block. As time advances, a higher-level slot that comes due is
/// cascaded: its entries move down to finer levels.
///
/// Entries live in a slab reused through a free list (no allocation per insert
/// once warm) and are doubly linked into their slot, so cancel is an unlink.
/// timer_handle = slab index | generation << 32; a fired or cancelled entry's
/// generation moves on, so old handles are recognised as stale.
///
/// Timers fire exactly: fire(now) wakes an entry iff its deadline <= now, never
/// earlier; entries in the current tick whose deadline is still ahead stay put.
class timing_wheel final : public rtkit::timer_driver {
  public:
    explicit timing_wheel(const rtkit::plugin_options& options);
    explicit timing_wheel(rtkit::duration tick);

    rtkit::instant now() const noexcept override;
    rtkit::timer_handle insert(rtkit::instant deadline, rtkit::waker w) override;
    bool cancel(rtkit::timer_handle handle) noexcept override;
    std::optional<rtkit::instant> next_deadline() const noexcept override;
    std::size_t fire(rtkit::instant now) override;

    static constexpr unsigned levels = 6;
    static constexpr unsigned slots_per_level = 64;

  private:
    static constexpr std::uint32_t nil = UINT32_MAX;
    static constexpr std::uint8_t in_overflow = 0xFE;  ///< entry::level of a heap entry
    static constexpr std::uint8_t unused = 0xFF;       ///< entry::level of a free entry

    struct entry {
        std::int64_t deadline = 0;  ///< exact, in ns on the driver's clock
        std::uint64_t tick = 0;     ///< where it belongs on the wheel
        std::uint32_t prev = nil;   ///< circular list within its slot
        std::uint32_t next = nil;   ///< ... or the free list
        std::uint32_t generation = 1;
        std::uint8_t level = unused;
        std::uint8_t slot = 0;
        rtkit::waker waker;
    };
    struct overflow_item {
        std::int64_t deadline;
        rtkit::timer_handle handle;  ///< stale once cancelled: dropped lazily
    };

    std::uint64_t tick_of(std::int64_t deadline_ns) const noexcept;
    void place(std::uint32_t index) noexcept;
    void link(std::uint32_t index, unsigned level, unsigned slot) noexcept;
    void unlink(std::uint32_t index) noexcept;
    void release(std::uint32_t index) noexcept;
    void set_elapsed(std::uint64_t tick) noexcept;
    void pull_overflow_into_wheel() noexcept;
    void drop_stale_overflow() const noexcept;
    bool entry_alive(rtkit::timer_handle handle) const noexcept;
    std::int64_t earliest_deadline() const noexcept;
    std::size_t fire_slot(unsigned slot, std::int64_t now_ns, bool current_tick);
    void cascade(unsigned level, unsigned slot) noexcept;

    std::int64_t tick_ns_;
    std::int64_t origin_ns_;     ///< tick 0 starts here
    std::uint64_t elapsed_ = 0;  ///< the current tick: every earlier tick has been processed
    std::vector<entry> slab_;
    std::uint32_t free_head_ = nil;
    std::size_t armed_ = 0;
    std::array<std::array<std::uint32_t, slots_per_level>, levels> heads_;
    std::array<std::uint64_t, levels> occupied_{};  ///< bit s set: slot s has entries
    /// Min-heap by deadline; mutable so that const readers may drop stale tops.
    mutable std::vector<overflow_item> overflow_;
    std::size_t overflow_live_ = 0;  ///< items in overflow_ that are not stale
    /// The earliest armed deadline (exact), valid while cache_valid_.
    mutable std::int64_t cached_earliest_ = 0;
    mutable bool cache_valid_ = false;
};

}  // namespace rtkit_wheel
