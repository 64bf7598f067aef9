#include "task_store.hpp"

namespace rtkit::detail {

task_id task_store::insert(task_header* task) {
    std::uint32_t index;
    if (free_head_ != 0) {
        index = free_head_ - 1;
        free_head_ = slot_at(index).next_free;
    } else {
        index = used_;
        if ((index >> page_bits) == pages_.size())
            pages_.push_back(std::make_unique<slot[]>(page_size));
        ++used_;
    }
    slot& s = slot_at(index);
    s.task = task;
    live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return task_id{(std::uint64_t{s.generation} << 32) | (index + 1)};
}

void task_store::remove(task_id id) noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > used_) return;
    slot& s = slot_at(low - 1);
    if (s.generation != id.generation() || !s.task) return;
    s.task = nullptr;
    s.generation = s.generation + 1 == 0 ? 1 : s.generation + 1;  // 0 never appears in an id
    s.next_free = free_head_;
    free_head_ = low;
    live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
}

task_header* task_store::find(task_id id) const noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > used_) return nullptr;
    const slot& s = slot_at(low - 1);
    return s.generation == id.generation() ? s.task : nullptr;
}

}  // namespace rtkit::detail
