#include "task_store.hpp"

#include <sys/mman.h>

#include <cassert>
#include <new>
#include <stdexcept>
#include <string>

namespace rtkit::detail {

namespace {

/// 2^27 slots (1 GiB of address space, not of memory) per worker; when the
/// address space is limited (ulimit -v), smaller ranges are tried down to 2^20.
constexpr unsigned max_slot_bits = 27;
constexpr unsigned min_slot_bits = 20;
constexpr std::size_t plain_prefix = std::size_t{2} << 20;  // bytes on ordinary pages

}  // namespace

task_store::task_store() {
    for (unsigned bits = max_slot_bits; bits >= min_slot_bits; --bits) {
        const std::size_t bytes = (std::size_t{1} << bits) * sizeof(slot);
        void* range = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (range == MAP_FAILED) continue;
        // The prefix boundary is 2 MiB-aligned only if the range is; madvise
        // ignores the parts of a range that cannot hold a whole huge page.
        ::madvise(static_cast<std::byte*>(range) + plain_prefix, bytes - plain_prefix,
                  MADV_HUGEPAGE);
        slots_ = static_cast<slot*>(range);
        capacity_ = std::uint32_t{1} << bits;
        return;
    }
    throw std::bad_alloc();
}

task_store::~task_store() {
    ::munmap(slots_, std::size_t{capacity_} * sizeof(slot));
}

task_id task_store::insert(task_header* task) {
    std::uint32_t index;
    std::uint32_t generation = 1;
    if (free_head_ != 0) {
        index = free_head_ - 1;
        generation = generation_of(slots_[index]);
        free_head_ = next_free_of(slots_[index]);
    } else {
        if (used_ == capacity_)
            throw std::length_error("rtkit: more than " + std::to_string(capacity_) +
                                    " live tasks on one worker");
        index = used_++;
    }
    slots_[index] = reinterpret_cast<slot>(task);
    task->id = task_id{(std::uint64_t{generation} << 32) | (index + 1)};
    live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return task->id;
}

task_header* task_store::find(task_id id) const noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > used_ || is_free(slots_[low - 1])) return nullptr;
    auto* task = reinterpret_cast<task_header*>(slots_[low - 1]);
    return task->id == id ? task : nullptr;
}

void task_store::remove(task_id id) noexcept {
    assert(id.index() != 0 && id.index() <= used_ && !is_free(slots_[id.index() - 1]));
    const std::uint32_t next = id.generation() + 1;
    slots_[id.index() - 1] = free_slot(next == 0 ? 1 : next, free_head_);  // 0 is in no id
    free_head_ = id.index();
    live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    removed_.store(removed_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace rtkit::detail
