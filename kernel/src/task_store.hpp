#pragma once
// The live tasks of one worker, in a slab.
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "owned_count.hpp"
#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

/// The live tasks of one worker: how many there are (what a quiescence check
/// counts), and a slot for each that has started (what shutdown and region
/// cancellation walk). One thread at a time: the worker's holder, or when
/// workers share stores, any of them under the worker's store lock; size()
/// and removed_total() from anywhere.
///
/// A task gets its slot at its first poll: tasks spawned and still queued
/// (a million of them in a spawn burst) hold none, and a task that finishes
/// in its first poll hands its slot to the next one. The first poll checks
/// for the shutdown or region cancellation that the task missed while it
/// had no slot (worker::start_first_poll).
///
/// A slot is one word, since a million started tasks cost a million slots: a
/// used slot holds the task, which holds its index (task_header::store_index);
/// a free slot holds the next free slot.
///
/// The slots are one array in a range of address space reserved up front and
/// touched only as it fills, so growing never copies and an index is one add.
/// The range follows the system's huge page policy, or asks for transparent
/// huge pages (runtime_config::huge_pages).
class task_store {
  public:
    explicit task_store(bool huge_pages = false);
    ~task_store();
    task_store(const task_store&) = delete;
    task_store& operator=(const task_store&) = delete;

    /// task_header::store_index of a task that has no slot (yet).
    static constexpr std::uint32_t no_slot = UINT32_MAX;

    /// Counts `task` as live here, without a slot. Throws std::length_error
    /// when max_size() tasks are live on this worker already.
    void admit(task_header* task);
    /// Gives an admitted task without one a slot (it never fails: each live
    /// task has one waiting for it).
    void keep(task_header* task) noexcept;
    /// admit() and keep() at once.
    void insert(task_header* task) {
        admit(task);
        keep(task);
    }
    /// Counts a block_on root as live here while it drives this worker. It is
    /// not one of the tasks that tasks_ended() and live_tasks() count, and it
    /// takes no slot: its block_on call, not a walk of the slots, asks it to
    /// unwind at shutdown (its region, the runtime's root region, is
    /// cancelled only then).
    void admit_root(task_header* root) {
        admit(root);
        roots_in_.add();
    }
    /// Forgets a root admit_root() counted.
    void remove_root() noexcept {
        remove(no_slot);
        roots_out_.add();
    }
    /// Forgets a task admitted here whose store_index was `index` (no_slot or
    /// its slot). Reads only the slot: the task's frame may be gone already.
    void remove(std::uint32_t index) noexcept;
    /// How many tasks are live here, with a slot or not. Any thread may read
    /// it (a snapshot).
    std::size_t size() const noexcept { return live_.load(std::memory_order_relaxed); }
    /// How many tasks have left the store since it was made (they finished).
    /// Any thread may read it (a snapshot).
    std::uint64_t removed_total() const noexcept {
        return removed_.load(std::memory_order_relaxed);
    }
    /// The same, without roots: the spawned tasks that ended (any thread).
    /// Read before live_tasks(), a task that ended is not seen alive too.
    std::uint64_t tasks_ended() const noexcept {
        const std::uint64_t roots_out = roots_out_.get();
        return removed_.load(std::memory_order_acquire) - roots_out;
    }
    /// Spawned tasks live here now, without roots (any thread).
    std::uint64_t live_tasks() const noexcept {
        const std::uint64_t roots_out = roots_out_.get();
        const std::uint64_t live = live_.load(std::memory_order_acquire);
        const std::uint64_t roots_live = roots_in_.get() - roots_out;
        return live > roots_live ? live - roots_live : 0;
    }
    /// block_on roots live here now (any thread).
    std::uint64_t live_roots() const noexcept {
        const std::uint64_t roots_out = roots_out_.get();  // first: never more out than in
        return roots_in_.get() - roots_out;
    }
    /// How many tasks it can hold at once.
    std::size_t max_size() const noexcept { return capacity_; }

    /// Calls f(task_header*) for every task with a slot (f must not admit,
    /// keep or remove).
    template <class F>
    void for_each(F&& f) const {
        for (std::uint32_t i = 0; i < used_; ++i)
            if (!is_free(slots_[i])) f(reinterpret_cast<task_header*>(slots_[i]));
    }

  private:
    /// A live task's address (8-aligned, so bit 0 is clear), or a free slot:
    /// (index + 1 of the next free slot, 0 = none) << 1 | 1.
    using slot = std::uintptr_t;
    static_assert(sizeof(slot) == 8 && alignof(task_header) >= 2);
    static bool is_free(slot s) noexcept { return s & 1; }

    [[noreturn]] void throw_full() const;

    slot* slots_ = nullptr;  ///< the reserved range; slots below used_ are written
    std::uint32_t capacity_ = 0;
    std::uint32_t used_ = 0;       ///< slots ever handed out (the high-water mark)
    std::uint32_t free_head_ = 0;  ///< index + 1 of the first free slot, 0 = none
    /// Written by the owner only (load + store, no locked instruction), read by anyone.
    std::atomic<std::size_t> live_{0};
    std::atomic<std::uint64_t> removed_{0};
    owned_count roots_in_;   ///< insert_root() calls
    owned_count roots_out_;  ///< remove_root() calls
};

// Inline: every spawn admits and every task's end removes, and the calls
// cost more than the work.
inline void task_store::admit(task_header* task) {
    const std::size_t live = live_.load(std::memory_order_relaxed);
    if (live == capacity_) throw_full();
    task->store_index = no_slot;
    live_.store(live + 1, std::memory_order_relaxed);
}

inline void task_store::keep(task_header* task) noexcept {
    std::uint32_t index;
    if (free_head_ != 0) {
        index = free_head_ - 1;
        free_head_ = static_cast<std::uint32_t>(slots_[index] >> 1);
    } else {
        assert(used_ < capacity_);  // at most one slot per live task
        index = used_++;
    }
    slots_[index] = reinterpret_cast<slot>(task);
    task->store_index = index;
}

inline void task_store::remove(std::uint32_t index) noexcept {
    if (index != no_slot) {
        assert(index < used_ && !is_free(slots_[index]));
        slots_[index] = (slot{free_head_} << 1) | 1;
        free_head_ = index + 1;
    }
    live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    removed_.store(removed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace rtkit::detail
