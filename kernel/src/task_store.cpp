#include "task_store.hpp"

namespace rtkit::detail {

task_id task_store::insert(task_header* task) {
    std::uint32_t index;
    if (free_head_ != 0) {
        index = free_head_ - 1;
        free_head_ = slots_[index].next_free;
    } else {
        index = static_cast<std::uint32_t>(slots_.size());
        slots_.emplace_back();
    }
    slot& s = slots_[index];
    s.task = task;
    live_.store(live_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return task_id{(std::uint64_t{s.generation} << 32) | (index + 1)};
}

void task_store::remove(task_id id) noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > slots_.size()) return;
    slot& s = slots_[low - 1];
    if (s.generation != id.generation() || !s.task) return;
    s.task = nullptr;
    s.generation = s.generation + 1 == 0 ? 1 : s.generation + 1;  // 0 never appears in an id
    s.next_free = free_head_;
    free_head_ = low;
    live_.store(live_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
}

task_header* task_store::find(task_id id) const noexcept {
    const std::uint32_t low = id.index();
    if (low == 0 || low > slots_.size()) return nullptr;
    const slot& s = slots_[low - 1];
    return s.generation == id.generation() ? s.task : nullptr;
}

}  // namespace rtkit::detail
