#pragma once
// The slab of live tasks of one worker, with generational ids.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

/// Maps task ids to live tasks. An id is (generation << 32 | index + 1): when a
/// task leaves, its slot's generation moves on, so a stale id finds nothing
/// instead of a later task. Slots live in fixed-size pages that never move, so
/// growing the store never copies it (a million live tasks cost 16 MB, touched
/// once). Owner thread only (the worker's holder), except size().
class task_store {
  public:
    /// Registers `task` and returns its id.
    task_id insert(task_header* task);
    /// Forgets the task with `id`; a stale id is ignored.
    void remove(task_id id) noexcept;
    /// The live task with `id`, or nullptr for a stale or unknown id.
    task_header* find(task_id id) const noexcept;
    /// How many tasks are registered. Any thread may read it (a snapshot).
    std::size_t size() const noexcept { return live_.load(std::memory_order_relaxed); }

    /// Calls f(task_header*) for every live task (f must not insert or remove).
    template <class F>
    void for_each(F&& f) const {
        for (std::uint32_t i = 0; i < used_; ++i)
            if (task_header* t = slot_at(i).task) f(t);
    }

  private:
    struct slot {
        task_header* task = nullptr;
        std::uint32_t generation = 1;
        std::uint32_t next_free = 0;  ///< index + 1 of the next free slot, 0 = none
    };
    static constexpr std::uint32_t page_bits = 12;  // 4096 slots, 64 KiB a page
    static constexpr std::uint32_t page_size = 1u << page_bits;

    slot& slot_at(std::uint32_t index) const noexcept {
        return pages_[index >> page_bits][index & (page_size - 1)];
    }

    std::vector<std::unique_ptr<slot[]>> pages_;
    std::uint32_t used_ = 0;       ///< slots ever handed out (the high-water mark)
    std::uint32_t free_head_ = 0;  ///< index + 1 of the first free slot, 0 = none
    /// Written by the owner only (load + store, no locked instruction), read by anyone.
    std::atomic<std::size_t> live_{0};
};

}  // namespace rtkit::detail
