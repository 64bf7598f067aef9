#include "timing_wheel.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>

namespace rtkit_wheel {
namespace {

constexpr unsigned bits_per_level = 6;
/// Ticks covered by all six levels; a deadline in a later block of this size
/// waits in the overflow heap.
constexpr unsigned wheel_bits = bits_per_level * timing_wheel::levels;

constexpr std::uint64_t block_of(std::uint64_t tick) {
    return tick >> wheel_bits;
}

/// The level at which `tick` belongs when the wheel stands at `elapsed` (same block).
unsigned level_for(std::uint64_t elapsed, std::uint64_t tick) {
    const std::uint64_t masked = (elapsed ^ tick) | (timing_wheel::slots_per_level - 1);
    return static_cast<unsigned>(63 - std::countl_zero(masked)) / bits_per_level;
}

constexpr std::uint32_t index_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h);
}
constexpr std::uint32_t generation_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h >> 32);
}

/// Heap order: std::push_heap keeps the largest on top, so compare reversed.
struct later_deadline {
    template <class T>
    bool operator()(const T& a, const T& b) const noexcept {
        return a.deadline > b.deadline;
    }
};

}  // namespace

timing_wheel::timing_wheel(const rtkit::plugin_options& options)
    : timing_wheel(std::chrono::microseconds(options.get_int("tick_us"))) {}

timing_wheel::timing_wheel(rtkit::duration tick)
    : tick_ns_(tick.count()), origin_ns_(now().time_since_epoch().count()) {
    for (auto& level : heads_)
        level.fill(nil);
}

rtkit::instant timing_wheel::now() const noexcept {
    return std::chrono::time_point_cast<rtkit::duration>(std::chrono::steady_clock::now());
}

std::uint64_t timing_wheel::tick_of(std::int64_t deadline_ns) const noexcept {
    // Compared first so that a far-past deadline cannot overflow the subtraction.
    if (deadline_ns <= origin_ns_) return 0;
    return static_cast<std::uint64_t>((deadline_ns - origin_ns_) / tick_ns_);
}

void timing_wheel::link(std::uint32_t index, unsigned level, unsigned slot) noexcept {
    entry& e = slab_[index];
    e.level = static_cast<std::uint8_t>(level);
    e.slot = static_cast<std::uint8_t>(slot);
    std::uint32_t& head = heads_[level][slot];
    if (head == nil) {
        e.prev = e.next = index;
        head = index;
        occupied_[level] |= std::uint64_t{1} << slot;
        return;
    }
    // Append at the tail (head's prev): timers due together fire in insertion order.
    const std::uint32_t tail = slab_[head].prev;
    e.prev = tail;
    e.next = head;
    slab_[tail].next = index;
    slab_[head].prev = index;
}

void timing_wheel::unlink(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    std::uint32_t& head = heads_[e.level][e.slot];
    if (e.next == index) {
        head = nil;
        occupied_[e.level] &= ~(std::uint64_t{1} << e.slot);
    } else {
        slab_[e.prev].next = e.next;
        slab_[e.next].prev = e.prev;
        if (head == index) head = e.next;
    }
}

void timing_wheel::place(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    const unsigned level = level_for(elapsed_, e.tick);
    link(index, level, static_cast<unsigned>(e.tick >> (bits_per_level * level)) & 63);
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
    // Everything that may throw happens before the wheel changes.
    if (overflows && overflow_.size() == overflow_.capacity())
        overflow_.reserve(std::max<std::size_t>(16, overflow_.capacity() * 2));
    std::uint32_t index = free_head_;
    if (index == nil) {
        slab_.emplace_back();
        index = static_cast<std::uint32_t>(slab_.size() - 1);
    } else {
        free_head_ = slab_[index].next;
    }
    entry& e = slab_[index];
    e.deadline = deadline_ns;
    e.tick = tick;
    e.waker = std::move(w);
    const rtkit::timer_handle handle = index | (std::uint64_t{e.generation} << 32);
    if (overflows) {
        e.level = in_overflow;
        overflow_.push_back({deadline_ns, handle});
        std::push_heap(overflow_.begin(), overflow_.end(), later_deadline{});
        ++overflow_live_;
    } else {
        place(index);
    }
    if (armed_++ == 0) {
        cached_earliest_ = deadline_ns;
        cache_valid_ = true;
    } else if (cache_valid_ && deadline_ns < cached_earliest_) {
        cached_earliest_ = deadline_ns;
    }
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
    entry& e = slab_[index];
    if (cache_valid_ && e.deadline == cached_earliest_) cache_valid_ = false;
    if (e.level == in_overflow) {
        // Its heap item goes stale (generation check) and is dropped lazily; compact
        // when stale items outnumber live ones so the heap cannot grow without bound.
        --overflow_live_;
        release(index);
        if (overflow_.size() > 2 * overflow_live_ + 64) {
            std::erase_if(overflow_,
                          [&](const overflow_item& i) { return !entry_alive(i.handle); });
            std::make_heap(overflow_.begin(), overflow_.end(), later_deadline{});
        }
        return true;
    }
    unlink(index);
    release(index);
    return true;
}

void timing_wheel::drop_stale_overflow() const noexcept {
    while (!overflow_.empty() && !entry_alive(overflow_.front().handle)) {
        std::pop_heap(overflow_.begin(), overflow_.end(), later_deadline{});
        overflow_.pop_back();
    }
}

void timing_wheel::pull_overflow_into_wheel() noexcept {
    for (drop_stale_overflow(); !overflow_.empty(); drop_stale_overflow()) {
        const std::uint32_t index = index_of(overflow_.front().handle);
        if (block_of(slab_[index].tick) != block_of(elapsed_)) break;
        std::pop_heap(overflow_.begin(), overflow_.end(), later_deadline{});
        overflow_.pop_back();
        --overflow_live_;
        place(index);
    }
}

void timing_wheel::set_elapsed(std::uint64_t tick) noexcept {
    const bool new_block = block_of(tick) != block_of(elapsed_);
    elapsed_ = tick;
    if (new_block) pull_overflow_into_wheel();
}

std::int64_t timing_wheel::earliest_deadline() const noexcept {
    std::int64_t earliest = INT64_MAX;
    // Lower levels hold earlier ticks, and within a level lower slots do, so the
    // earliest entry is in the first occupied slot of the first occupied level.
    for (unsigned level = 0; level < levels; ++level) {
        if (occupied_[level] == 0) continue;
        const unsigned slot = static_cast<unsigned>(std::countr_zero(occupied_[level]));
        const std::uint32_t head = heads_[level][slot];
        std::uint32_t i = head;
        do {
            earliest = std::min(earliest, slab_[i].deadline);
            i = slab_[i].next;
        } while (i != head);
        break;
    }
    drop_stale_overflow();
    if (!overflow_.empty()) earliest = std::min(earliest, overflow_.front().deadline);
    return earliest;
}

std::optional<rtkit::instant> timing_wheel::next_deadline() const noexcept {
    if (armed_ == 0) return std::nullopt;
    if (!cache_valid_) {
        cached_earliest_ = earliest_deadline();
        cache_valid_ = true;
    }
    // Compared first so that a far-past deadline cannot overflow the subtraction.
    if (cached_earliest_ <= origin_ns_) return rtkit::instant(rtkit::duration(cached_earliest_));
    // Up to a tick boundary: fire() at that instant is sure to find it due. Within
    // a tick of the clock's end, the end itself: a far deadline means "never",
    // and must not wrap around to the past.
    const std::int64_t into_tick = (cached_earliest_ - origin_ns_) % tick_ns_;
    std::int64_t boundary = cached_earliest_;
    if (into_tick != 0 && __builtin_add_overflow(cached_earliest_, tick_ns_ - into_tick, &boundary))
        boundary = std::numeric_limits<std::int64_t>::max();
    return rtkit::instant(rtkit::duration(boundary));
}

std::size_t timing_wheel::fire_slot(unsigned slot, std::int64_t now_ns, bool current_tick) {
    std::uint32_t i = heads_[0][slot];
    // Detach the whole list; entries not yet due are linked back in order.
    slab_[slab_[i].prev].next = nil;
    heads_[0][slot] = nil;
    occupied_[0] &= ~(std::uint64_t{1} << slot);
    std::size_t fired = 0;
    while (i != nil) {
        const std::uint32_t next = slab_[i].next;
        if (current_tick && slab_[i].deadline > now_ns) {
            link(i, 0, slot);  // due later within this tick: never fire early
        } else {
            rtkit::waker w = std::move(slab_[i].waker);
            release(i);
            ++fired;
            w.wake();  // after release: the entry is no longer reachable
        }
        i = next;
    }
    return fired;
}

void timing_wheel::cascade(unsigned level, unsigned slot) noexcept {
    std::uint32_t i = heads_[level][slot];
    slab_[slab_[i].prev].next = nil;
    heads_[level][slot] = nil;
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
        while (level < levels && occupied_[level] == 0)
            ++level;
        if (level == levels) {
            // The wheel is empty: jump to the block of the first overflow deadline
            // if it is due, which pulls that block's entries into the wheel.
            drop_stale_overflow();
            if (overflow_.empty()) break;
            const std::uint64_t tick = slab_[index_of(overflow_.front().handle)].tick;
            if (tick > now_tick) break;
            set_elapsed(block_of(tick) << wheel_bits);
            continue;
        }
        const unsigned slot = static_cast<unsigned>(std::countr_zero(occupied_[level]));
        const unsigned shift = bits_per_level * level;
        const std::uint64_t level_base = elapsed_ & ~((std::uint64_t{1} << (shift + 6)) - 1);
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
    if (fired > 0) cache_valid_ = false;
    return fired;
}

}  // namespace rtkit_wheel
