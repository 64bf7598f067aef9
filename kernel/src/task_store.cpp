#include "task_store.hpp"

#include <sys/mman.h>

#include <new>
#include <stdexcept>
#include <string>

namespace rtkit::detail {

namespace {

/// 2^27 slots (2 GiB of address space, not of memory) per worker; when the
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
    if (free_head_ != 0) {
        index = free_head_ - 1;
        free_head_ = slots_[index].next_free;
    } else {
        if (used_ == capacity_)
            throw std::length_error("rtkit: more than " + std::to_string(capacity_) +
                                    " live tasks on one worker");
        index = used_++;
        new (&slots_[index]) slot{};
    }
    slot& s = slots_[index];
    s.task = task;
    live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return task_id{(std::uint64_t{s.generation} << 32) | (index + 1)};
}

void task_store::remove(task_id id) noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > used_) return;
    slot& s = slots_[low - 1];
    if (s.generation != id.generation() || !s.task) return;
    s.task = nullptr;
    s.generation = s.generation + 1 == 0 ? 1 : s.generation + 1;  // 0 never appears in an id
    s.next_free = free_head_;
    free_head_ = low;
    live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    removed_.store(removed_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

task_header* task_store::find(task_id id) const noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > used_) return nullptr;
    const slot& s = slots_[low - 1];
    return s.generation == id.generation() ? s.task : nullptr;
}

}  // namespace rtkit::detail
