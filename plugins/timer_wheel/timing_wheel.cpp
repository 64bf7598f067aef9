#include "timing_wheel.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace rtkit_wheel {
namespace {

__extension__ using uint128 = unsigned __int128;  // GCC and clang, on 64-bit targets

constexpr std::uint32_t index_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h);
}
constexpr std::uint32_t generation_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h >> 32);
}

unsigned checked_slot_bits(unsigned levels, unsigned slots_per_level) {
    if (levels < 1 || levels > timing_wheel::max_levels)
        throw std::invalid_argument("levels must be between 1 and " +
                                    std::to_string(timing_wheel::max_levels) + ", not " +
                                    std::to_string(levels));
    if (slots_per_level < 2 || slots_per_level > timing_wheel::max_slots_per_level ||
        !std::has_single_bit(slots_per_level))
        throw std::invalid_argument(
            "slots_per_level must be a power of two from 2 to 64 (2, 4, 8, 16, 32 or 64), not " +
            std::to_string(slots_per_level));
    return static_cast<unsigned>(std::countr_zero(slots_per_level));
}

}  // namespace

timing_wheel::timing_wheel(const rtkit::plugin_options& options)
    : timing_wheel(std::chrono::microseconds(options.get_int("tick_us")),
                   static_cast<unsigned>(options.get_int("levels")),
                   static_cast<unsigned>(options.get_int("slots_per_level"))) {}

timing_wheel::timing_wheel(rtkit::duration tick, unsigned levels, unsigned slots_per_level)
    : tick_ns_(tick.count()),
      origin_ns_(now().time_since_epoch().count()),
      levels_(levels),
      slot_bits_(checked_slot_bits(levels, slots_per_level)),
      wheel_bits_(levels * slot_bits_) {
    if (tick_ns_ <= 0) throw std::invalid_argument("the tick must be positive");
    tick_reciprocal_ = UINT64_MAX / static_cast<std::uint64_t>(tick_ns_);
    for (unsigned bit = 0; bit < level_of_bit_.size(); ++bit)
        level_of_bit_[bit] = static_cast<std::uint8_t>(bit / slot_bits_);
}

void* timing_wheel::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::timer_clock_binding_name) == 0)
        return static_cast<rtkit::timer_clock_binding*>(this);
    return nullptr;
}

void timing_wheel::bind_clock(const rtkit::clock_source& clock) noexcept {
    clock_ = &clock;
    origin_ns_ = clock.now().time_since_epoch().count();
}

rtkit::instant timing_wheel::now() const noexcept {
    if (clock_) return clock_->now();
    return std::chrono::time_point_cast<rtkit::duration>(std::chrono::steady_clock::now());
}

std::uint64_t timing_wheel::tick_of(std::int64_t deadline_ns) const noexcept {
    // Compared first so that a far-past deadline cannot overflow the subtraction.
    if (deadline_ns <= origin_ns_) return 0;
    // Unsigned: a deadline near the clock's end minus a negative origin exceeds int64.
    const std::uint64_t since_origin =
        static_cast<std::uint64_t>(deadline_ns) - static_cast<std::uint64_t>(origin_ns_);
    // The reciprocal's quotient is at most two below the exact one.
    const auto tick_ns = static_cast<std::uint64_t>(tick_ns_);
    auto tick =
        static_cast<std::uint64_t>((static_cast<uint128>(since_origin) * tick_reciprocal_) >> 64);
    while (since_origin - tick * tick_ns >= tick_ns)
        ++tick;
    return tick;
}

timing_wheel::entry_list& timing_wheel::list_of(const entry& e) noexcept {
    if (e.level == in_overflow) return overflow_.find(block_of(e.tick))->second;
    if (e.level == firing) return firing_;
    return slots_[e.level * max_slots_per_level + e.slot];
}

void timing_wheel::link(std::uint32_t index, std::uint8_t level, std::uint8_t slot) noexcept {
    entry& e = slab_[index];
    e.level = level;
    e.slot = slot;
    entry_list& list = list_of(e);
    if (list.head == nil) {
        e.prev = e.next = index;
        list = {index, false, false};
        if (level < levels_) occupied_[level] |= std::uint64_t{1} << slot;
        return;
    }
    // Append at the tail (head's prev): timers due together fire in insertion order.
    const std::uint32_t head = list.head;
    const std::uint32_t tail = slab_[head].prev;
    if (e.deadline < slab_[tail].deadline) list.out_of_order = true;
    e.prev = tail;
    e.next = head;
    slab_[tail].next = index;
    slab_[head].prev = index;
}

void timing_wheel::unlink(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    std::uint32_t& head = list_of(e).head;
    if (e.next == index) {
        head = nil;
        if (e.level < levels_) occupied_[e.level] &= ~(std::uint64_t{1} << e.slot);
        if (e.level == in_overflow) overflow_.erase(block_of(e.tick));
    } else {
        slab_[e.prev].next = e.next;
        slab_[e.next].prev = e.prev;
        if (head == index) head = e.next;
    }
}

void timing_wheel::place(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    // The highest base-2^slot_bits_ digit in which the tick differs from elapsed_.
    const std::uint64_t differing = (elapsed_ ^ e.tick) | ((std::uint64_t{1} << slot_bits_) - 1);
    const unsigned level = level_of_bit_[static_cast<unsigned>(63 - std::countl_zero(differing))];
    const unsigned slot =
        static_cast<unsigned>(e.tick >> (slot_bits_ * level)) & ((1u << slot_bits_) - 1);
    link(index, static_cast<std::uint8_t>(level), static_cast<std::uint8_t>(slot));
}

void timing_wheel::release(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    e.waker.reset();
    e.level = unused;
    if (++e.generation == 0) e.generation = 1;
    e.next = free_head_;
    free_head_ = index;
    --armed_;
}

rtkit::timer_handle timing_wheel::insert(rtkit::instant deadline, rtkit::waker w) {
    const std::int64_t deadline_ns = deadline.time_since_epoch().count();
    const std::uint64_t tick = std::max(tick_of(deadline_ns), elapsed_);
    const bool overflows = block_of(tick) != block_of(elapsed_);
    // The steps that may throw (growing the slab, making an overflow list)
    // come before the wheel changes.
    std::uint32_t index = free_head_;
    if (index == nil) {
        slab_.emplace_back();
        index = static_cast<std::uint32_t>(slab_.size() - 1);
    } else {
        free_head_ = slab_[index].next;
    }
    if (overflows) {
        try {
            overflow_.try_emplace(block_of(tick));
        } catch (...) {
            slab_[index].next = free_head_;
            free_head_ = index;
            throw;
        }
    }
    entry& e = slab_[index];
    e.deadline = deadline_ns;
    e.tick = tick;
    e.waker = std::move(w);
    const rtkit::timer_handle handle = index | (std::uint64_t{e.generation} << 32);
    if (overflows)
        link(index, in_overflow, 0);  // into the list made above
    else
        place(index);
    if (armed_++ == 0 || deadline_ns < earliest_) earliest_ = deadline_ns;
    return handle;
}

bool timing_wheel::entry_alive(rtkit::timer_handle handle) const noexcept {
    const std::uint32_t index = index_of(handle);
    return index < slab_.size() && slab_[index].level != unused &&
           slab_[index].generation == generation_of(handle);
}

bool timing_wheel::cancel(rtkit::timer_handle handle) noexcept {
    if (!entry_alive(handle)) return false;
    const std::uint32_t index = index_of(handle);
    const bool was_earliest = slab_[index].deadline == earliest_;
    unlink(index);
    release(index);
    if (was_earliest && armed_ > 0) refresh_earliest();
    return true;
}

void timing_wheel::set_elapsed(std::uint64_t tick) noexcept {
    const bool new_block = block_of(tick) != block_of(elapsed_);
    elapsed_ = tick;
    if (!new_block) return;
    // The new block's overflow list moves into the wheel, in its order.
    const auto list = overflow_.find(block_of(tick));
    if (list == overflow_.end()) return;
    std::uint32_t i = list->second.head;
    slab_[slab_[i].prev].next = nil;
    overflow_.erase(list);
    while (i != nil) {
        const std::uint32_t next = slab_[i].next;
        place(i);
        i = next;
    }
}

std::int64_t timing_wheel::earliest_in(entry_list& list) noexcept {
    if (!list.out_of_order) return slab_[list.head].deadline;
    if (list.scanned) {
        // Looked at again, most likely because its earliest went: sorting now
        // makes each later look O(1) while entries keep arriving in order.
        list = {sorted_by_deadline(list.head), false, false};
        return slab_[list.head].deadline;
    }
    list.scanned = true;
    std::int64_t earliest = slab_[list.head].deadline;
    for (std::uint32_t i = slab_[list.head].next; i != list.head; i = slab_[i].next)
        earliest = std::min(earliest, slab_[i].deadline);
    return earliest;
}

std::uint32_t timing_wheel::sorted_by_deadline(std::uint32_t head) noexcept {
    // A natural merge sort: each pass merges neighbouring runs that are already
    // in order, so a list in order but for k entries costs O(n log k). Merging
    // takes from the earlier run on equal deadlines, which keeps their order.
    slab_[slab_[head].prev].next = nil;  // a straight list, on `next` only
    const auto run_end = [this](std::uint32_t i) {
        while (slab_[i].next != nil && slab_[slab_[i].next].deadline >= slab_[i].deadline)
            i = slab_[i].next;
        return i;
    };
    for (;;) {
        std::uint32_t merged_head = nil;
        std::uint32_t merged_tail = nil;
        const auto take = [&](std::uint32_t& from) {
            const std::uint32_t i = from;
            from = slab_[i].next;
            (merged_tail == nil ? merged_head : slab_[merged_tail].next) = i;
            merged_tail = i;
        };
        unsigned merges = 0;
        std::uint32_t rest = head;
        while (rest != nil) {
            std::uint32_t a = rest;
            const std::uint32_t a_end = run_end(a);
            std::uint32_t b = slab_[a_end].next;
            slab_[a_end].next = nil;
            rest = nil;
            if (b != nil) {
                const std::uint32_t b_end = run_end(b);
                rest = slab_[b_end].next;
                slab_[b_end].next = nil;
            }
            while (a != nil && b != nil)
                take(slab_[b].deadline < slab_[a].deadline ? b : a);
            while (a != nil)
                take(a);
            while (b != nil)
                take(b);
            ++merges;
        }
        slab_[merged_tail].next = nil;
        head = merged_head;
        if (merges == 1) break;  // the one merge made the whole list
    }
    // Circular again, with the `prev` links.
    std::uint32_t last = head;
    for (std::uint32_t i = slab_[head].next; i != nil; i = slab_[i].next) {
        slab_[i].prev = last;
        last = i;
    }
    slab_[head].prev = last;
    slab_[last].next = head;
    return head;
}

std::int64_t timing_wheel::overflow_earliest() noexcept {
    // In the list of the first block: later blocks hold later deadlines.
    return earliest_in(overflow_.begin()->second);
}

void timing_wheel::refresh_earliest() noexcept {
    earliest_ = std::numeric_limits<std::int64_t>::max();
    // Lower levels hold earlier ticks, and within a level lower slots do, so the
    // earliest entry is in the first occupied slot of the first occupied level.
    for (unsigned level = 0; level < levels_; ++level) {
        if (occupied_[level] == 0) continue;
        const unsigned at =
            level * max_slots_per_level + static_cast<unsigned>(std::countr_zero(occupied_[level]));
        earliest_ = earliest_in(slots_[at]);
        break;
    }
    if (!overflow_.empty()) earliest_ = std::min(earliest_, overflow_earliest());
}

std::optional<rtkit::instant> timing_wheel::next_deadline() const noexcept {
    if (armed_ == 0) return std::nullopt;
    // Compared first so that a far-past deadline cannot overflow the subtraction.
    if (earliest_ <= origin_ns_) return rtkit::instant(rtkit::duration(earliest_));
    // Up to a tick boundary: fire() at that instant is sure to find it due. Within
    // a tick of the clock's end, the end itself: a far deadline means "never",
    // and must not wrap around to the past.
    const std::int64_t into_tick = static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(earliest_) - static_cast<std::uint64_t>(origin_ns_)) %
        static_cast<std::uint64_t>(tick_ns_));
    std::int64_t boundary = earliest_;
    if (into_tick != 0 && __builtin_add_overflow(earliest_, tick_ns_ - into_tick, &boundary))
        boundary = std::numeric_limits<std::int64_t>::max();
    return rtkit::instant(rtkit::duration(boundary));
}

std::size_t timing_wheel::fire_slot(unsigned slot, std::int64_t now_ns, bool current_tick) {
    // Sort the slot into the firing list (due) and back into the slot (due later
    // within this tick: never fire early), keeping the order, before any waker
    // runs; then wake the firing list one entry at a time, so that a waker may
    // cancel any entry still waiting there.
    std::uint32_t& head = slots_[slot].head;
    std::uint32_t i = head;
    slab_[slab_[i].prev].next = nil;
    head = nil;
    occupied_[0] &= ~(std::uint64_t{1} << slot);
    while (i != nil) {
        const std::uint32_t next = slab_[i].next;
        if (current_tick && slab_[i].deadline > now_ns)
            link(i, 0, static_cast<std::uint8_t>(slot));
        else
            link(i, firing, 0);
        i = next;
    }
    std::size_t fired = 0;
    while (firing_.head != nil) {
        const std::uint32_t due = firing_.head;
        unlink(due);
        rtkit::waker w = std::move(slab_[due].waker);
        release(due);
        ++fired;
        w.wake();  // after release: the entry is no longer reachable
    }
    return fired;
}

void timing_wheel::cascade(unsigned level, unsigned slot) noexcept {
    std::uint32_t& head = slots_[level * max_slots_per_level + slot].head;
    std::uint32_t i = head;
    slab_[slab_[i].prev].next = nil;
    head = nil;
    occupied_[level] &= ~(std::uint64_t{1} << slot);
    while (i != nil) {
        const std::uint32_t next = slab_[i].next;
        place(i);  // lands on a finer level, since elapsed_ now stands in this slot
        i = next;
    }
}

std::size_t timing_wheel::fire(rtkit::instant now) {
    const std::int64_t now_ns = now.time_since_epoch().count();
    // A `now` behind the wheel (an earlier now() than a previous fire's) can only
    // find due entries in the current tick's slot, which the exact compare handles.
    const std::uint64_t now_tick = std::max(tick_of(now_ns), elapsed_);
    std::size_t fired = 0;
    while (armed_ > 0) {
        unsigned level = 0;
        while (level < levels_ && occupied_[level] == 0)
            ++level;
        if (level == levels_) {
            // The wheel is empty: jump to the block of the first overflow deadline
            // if it is due, which pulls that block's entries into the wheel.
            if (overflow_.empty()) break;
            const std::uint64_t tick = std::max(tick_of(overflow_earliest()), elapsed_);
            if (tick > now_tick) break;
            set_elapsed(block_of(tick) << wheel_bits_);
            continue;
        }
        const unsigned slot = static_cast<unsigned>(std::countr_zero(occupied_[level]));
        const unsigned shift = slot_bits_ * level;
        const std::uint64_t level_base =
            elapsed_ & ~((std::uint64_t{1} << (shift + slot_bits_)) - 1);
        const std::uint64_t slot_start = level_base + (std::uint64_t{slot} << shift);
        if (slot_start > now_tick) break;
        elapsed_ = std::max(elapsed_, slot_start);  // same block: nothing to pull
        if (level > 0) {
            cascade(level, slot);
            continue;
        }
        const bool current_tick = slot_start == now_tick;
        fired += fire_slot(slot, now_ns, current_tick);
        if (current_tick) break;  // what is left there is due later in this tick
    }
    if (now_tick > elapsed_) set_elapsed(now_tick);
    if (fired > 0) refresh_earliest();
    return fired;
}

}  // namespace rtkit_wheel
