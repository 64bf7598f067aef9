#include "idle_workers.hpp"

#include <algorithm>

#include "rtkit/detail/chaos.hpp"

namespace rtkit::detail {

void idle_workers::reset(std::size_t workers) noexcept {
    workers_ = workers;
    state_.store(static_cast<std::uint32_t>(workers) * unparked_one, std::memory_order_relaxed);
    parked_.clear();
    parked_.reserve(workers);
    is_parked_.assign(workers, false);
}

std::optional<std::uint16_t> idle_workers::worker_to_notify() noexcept {
    // The caller has just published work (a plain store into its lanes): a
    // read-modify-write here (a full barrier, which ThreadSanitizer also
    // understands, unlike a fence) keeps that store from passing this read,
    // so either this sees a worker parking, or the parking worker (an RMW,
    // then a look at the lanes) sees the work.
    return worker_to_notify(state_.fetch_add(0, std::memory_order_seq_cst));
}

std::optional<std::uint16_t> idle_workers::worker_to_notify_after_rmw() noexcept {
    // The publishing RMW and this load are both seq_cst: if this load misses
    // a worker's parking RMW, that RMW comes later in the single order of
    // seq_cst operations, and so does the parked worker's look, which then
    // sees the work.
    return worker_to_notify(state_.load(std::memory_order_seq_cst));
}

std::optional<std::uint16_t> idle_workers::worker_to_notify(std::uint32_t s) noexcept {
    // Fast path, taken by nearly every spawn and wake: someone is already
    // looking, or nobody is parked.
    if ((s & searching_mask) != 0 || (s >> 16) >= workers_) return std::nullopt;
    std::lock_guard lock(parked_mutex_);
    const std::uint32_t again = state_.load(std::memory_order_seq_cst);
    if ((again & searching_mask) != 0 || parked_.empty()) return std::nullopt;
    // Unparked and searching at once: the next new work wakes nobody while
    // this worker looks.
    state_.fetch_add(unparked_one + 1, std::memory_order_seq_cst);
    const std::uint16_t index = parked_.back();
    parked_.pop_back();
    is_parked_[index] = false;
    return index;
}

bool idle_workers::try_start_searching() noexcept {
    std::uint32_t s = state_.load(std::memory_order_seq_cst);
    for (;;) {
        if (2 * (s & searching_mask) >= (s >> 16)) return false;
        if (state_.compare_exchange_weak(s, s + 1, std::memory_order_seq_cst)) {
            RTKIT_CHAOS_POINT(searching_changed);
            return true;
        }
    }
}

bool idle_workers::stop_searching() noexcept {
    const bool last = (state_.fetch_sub(1, std::memory_order_seq_cst) & searching_mask) == 1;
    RTKIT_CHAOS_POINT(searching_changed);
    return last;
}

void idle_workers::park(std::uint16_t index, bool was_searching) noexcept {
    std::lock_guard lock(parked_mutex_);
    const std::uint32_t minus = unparked_one + (was_searching ? 1 : 0);
    state_.fetch_sub(minus, std::memory_order_seq_cst);
    parked_.push_back(index);
    is_parked_[index] = true;
}

bool idle_workers::is_parked(std::uint16_t index) noexcept {
    std::lock_guard lock(parked_mutex_);
    return is_parked_[index];
}

bool idle_workers::woke(std::uint16_t index) noexcept {
    std::lock_guard lock(parked_mutex_);
    if (!is_parked_[index]) return true;  // a notifier took it off the list
    parked_.erase(std::find(parked_.begin(), parked_.end(), index));
    is_parked_[index] = false;
    state_.fetch_add(unparked_one, std::memory_order_seq_cst);
    return false;
}

}  // namespace rtkit::detail
