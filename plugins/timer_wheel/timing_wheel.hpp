#pragma once
// rtkit_wheel::timing_wheel: a hierarchical timing wheel timer driver.
#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "rtkit/clock.hpp"
#include "rtkit/detail/block_array.hpp"
#include "rtkit/plugin.hpp"
#include "rtkit/timer_driver.hpp"

namespace rtkit_wheel {

/// Levels of slots over a fixed tick (by default 6 levels of 64 slots at 1 ms,
/// as in tokio).
///
/// A deadline maps to tick `floor((deadline - origin) / tick)`. With S slots
/// per level (a power of two), level L's slots each span S^L ticks; an entry
/// sits at the level of the highest base-S digit in which its tick differs
/// from the wheel's current tick, so level 0 holds the next S ticks and the
/// levels together cover S^levels ticks (a "block": 2^36 ticks, ~795 days at
/// the defaults). A deadline in a later block waits in that block's overflow
/// list until the wheel reaches the block. As time advances, a higher-level
/// slot that comes due is cascaded: its entries move down to finer levels.
///
/// Entries live in a slab reused through a free list (no allocation per insert
/// once warm) and are doubly linked into their slot (or overflow list), so
/// insert and cancel are O(1) within the wheel's block; an overflow list is
/// found by its block in an ordered map (O(log) in the number of later blocks
/// that hold timers). timer_handle = slab index | generation << 32;
/// a fired or cancelled entry's generation moves on, so old handles are
/// recognised as stale.
///
/// Timers fire exactly: fire(now) wakes an entry iff its deadline <= now, never
/// earlier; entries in the current tick whose deadline is still ahead stay put.
/// They wake tick by tick, and within a tick in the order of its slot's list
/// (equal deadlines in insertion order).
///
/// The earliest deadline is kept exact. A slot's list is in deadline order as
/// long as its entries arrive in that order (timeouts of one length do); when
/// one arrives out of order, the next look for the slot's earliest scans it,
/// and the look after that sorts it (a stable natural merge sort, in place).
/// So cancelling the earliest timer again and again, as a shutdown does to
/// every sleeper, costs O(1) each instead of a scan of the slot each.
class timing_wheel final : public rtkit::timer_driver, public rtkit::timer_clock_binding {
  public:
    static constexpr unsigned max_levels = 10;
    static constexpr unsigned max_slots_per_level = 64;

    /// From the plugin options tick_us, levels and slots_per_level; throws
    /// std::invalid_argument when slots_per_level is not a power of two.
    explicit timing_wheel(const rtkit::plugin_options& options);
    explicit timing_wheel(rtkit::duration tick, unsigned levels = 6, unsigned slots_per_level = 64);

    rtkit::instant now() const noexcept override;
    rtkit::timer_handle insert(rtkit::instant deadline, rtkit::waker w) override;
    bool cancel(rtkit::timer_handle handle) noexcept override;
    std::optional<rtkit::instant> next_deadline() const noexcept override;
    std::size_t fire(rtkit::instant now) override;

    void* query_interface(const char* name) noexcept override;
    void bind_clock(const rtkit::clock_source& clock) noexcept override;

  private:
    static constexpr std::uint32_t nil = UINT32_MAX;
    /// entry::level of an entry that is not on a wheel level.
    static constexpr std::uint8_t firing = 0xFD;       ///< due, waiting for its wake in fire()
    static constexpr std::uint8_t in_overflow = 0xFE;  ///< in a later block than the wheel's
    static constexpr std::uint8_t unused = 0xFF;       ///< free

    /// A circular list of entries (a slot's, a later block's, or the due
    /// entries being fired): its first entry, and whether it is in deadline
    /// order.
    struct entry_list {
        std::uint32_t head = nil;
        bool out_of_order = false;  ///< some entry has an earlier deadline than one before it
        bool scanned = false;       ///< out of order, and scanned once for its earliest
    };

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

    std::uint64_t tick_of(std::int64_t deadline_ns) const noexcept;
    std::uint64_t block_of(std::uint64_t tick) const noexcept { return tick >> wheel_bits_; }
    entry_list& list_of(const entry& e) noexcept;
    void place(std::uint32_t index) noexcept;
    void link(std::uint32_t index, std::uint8_t level, std::uint8_t slot) noexcept;
    void unlink(std::uint32_t index) noexcept;
    void release(std::uint32_t index) noexcept;
    void set_elapsed(std::uint64_t tick) noexcept;
    bool entry_alive(rtkit::timer_handle handle) const noexcept;
    std::int64_t earliest_in(entry_list& list) noexcept;
    std::uint32_t sorted_by_deadline(std::uint32_t head) noexcept;
    std::int64_t overflow_earliest() noexcept;
    void refresh_earliest() noexcept;
    std::size_t fire_slot(unsigned slot, std::int64_t now_ns, bool current_tick);
    void cascade(unsigned level, unsigned slot) noexcept;

    const rtkit::clock_source* clock_ = nullptr;  ///< the runtime's, once bound
    std::int64_t tick_ns_;
    /// floor((2^64 - 1) / tick_ns_): tick_of() divides by the tick with a
    /// multiplication (a 64-bit division takes tens of cycles, per insert).
    std::uint64_t tick_reciprocal_;
    std::int64_t origin_ns_;  ///< tick 0 starts here
    unsigned levels_;
    unsigned slot_bits_;   ///< log2 of the slots per level
    unsigned wheel_bits_;  ///< levels_ * slot_bits_: a block is 2^wheel_bits_ ticks
    /// level_of_bit_[b] = b / slot_bits_: the level of a tick whose highest bit
    /// differing from the current tick's is b (without a division per insert).
    std::array<std::uint8_t, 64> level_of_bit_{};
    std::uint64_t elapsed_ = 0;  ///< the current tick: every earlier tick has been processed
    rtkit::detail::block_array<entry> slab_;
    std::uint32_t free_head_ = nil;
    std::size_t armed_ = 0;
    /// slots_[level * max_slots_per_level + slot]: each slot's entries.
    std::array<entry_list, max_levels * max_slots_per_level> slots_{};
    std::array<std::uint64_t, max_levels> occupied_{};  ///< bit s set: slot s has entries
    /// Block -> its overflow list (in insertion order, until sorted); a block
    /// is in the map while its list has entries.
    std::map<std::uint64_t, entry_list> overflow_;
    entry_list firing_;  ///< due entries of the slot being fired
    /// The earliest armed deadline (exact) while a timer is armed, outside fire().
    std::int64_t earliest_ = 0;
};

}  // namespace rtkit_wheel
