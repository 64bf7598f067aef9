#include "timer_heap.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace rtkit_heap {
namespace {

constexpr std::uint32_t index_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h);
}
constexpr std::uint32_t generation_of(rtkit::timer_handle h) {
    return static_cast<std::uint32_t>(h >> 32);
}

}  // namespace

timer_heap::timer_heap(const rtkit::plugin_options& options)
    : timer_heap(static_cast<unsigned>(options.get_int("arity"))) {}

timer_heap::timer_heap(unsigned arity) : arity_(arity) {
    if (arity < 2) throw std::invalid_argument("a heap node needs at least 2 children");
}

void* timer_heap::query_interface(const char* name) noexcept {
    if (std::strcmp(name, rtkit::timer_clock_binding_name) == 0)
        return static_cast<rtkit::timer_clock_binding*>(this);
    return nullptr;
}

void timer_heap::bind_clock(const rtkit::clock_source& clock) noexcept {
    clock_ = &clock;
}

rtkit::instant timer_heap::now() const noexcept {
    if (clock_) return clock_->now();
    return std::chrono::time_point_cast<rtkit::duration>(std::chrono::steady_clock::now());
}

void timer_heap::put(std::size_t position, const node& n) noexcept {
    heap_[position] = n;
    slab_[n.index].position = static_cast<std::uint32_t>(position);
}

void timer_heap::sift_up(std::size_t position, node n) noexcept {
    while (position > 0) {
        const std::size_t parent = (position - 1) / arity_;
        if (!before(n, heap_[parent])) break;
        put(position, heap_[parent]);
        position = parent;
    }
    put(position, n);
}

void timer_heap::sift_down(std::size_t position, node n) noexcept {
    const std::size_t size = heap_.size();
    while (true) {
        const std::size_t first = position * arity_ + 1;
        if (first >= size) break;
        const std::size_t end = first + arity_ < size ? first + arity_ : size;
        std::size_t least = first;
        for (std::size_t child = first + 1; child < end; ++child)
            if (before(heap_[child], heap_[least])) least = child;
        if (!before(heap_[least], n)) break;
        put(position, heap_[least]);
        position = least;
    }
    put(position, n);
}

void timer_heap::remove_at(std::size_t position) noexcept {
    const node last = heap_.back();
    heap_.pop_back();
    if (position == heap_.size()) return;  // it was the last node
    if (position > 0 && before(last, heap_[(position - 1) / arity_]))
        sift_up(position, last);
    else
        sift_down(position, last);
}

void timer_heap::release(std::uint32_t index) noexcept {
    entry& e = slab_[index];
    e.waker.reset();
    e.position = nil;
    if (++e.generation == 0) e.generation = 1;
    e.next_free = free_head_;
    free_head_ = index;
}

rtkit::timer_handle timer_heap::insert(rtkit::instant deadline, rtkit::waker w) {
    // Both steps that may throw come before the heap changes: its new last
    // node is a placeholder until sift_up fills it.
    heap_.emplace_back();
    std::uint32_t index = free_head_;
    if (index == nil) {
        try {
            slab_.emplace_back();
        } catch (...) {
            heap_.pop_back();
            throw;
        }
        index = static_cast<std::uint32_t>(slab_.size() - 1);
    } else {
        free_head_ = slab_[index].next_free;
    }
    entry& e = slab_[index];
    e.waker = std::move(w);
    sift_up(heap_.size() - 1, node{deadline.time_since_epoch().count(), inserted_++, index});
    return index | (std::uint64_t{e.generation} << 32);
}

bool timer_heap::cancel(rtkit::timer_handle handle) noexcept {
    const std::uint32_t index = index_of(handle);
    if (index >= slab_.size()) return false;
    const entry& e = slab_[index];
    if (e.position == nil || e.generation != generation_of(handle)) return false;
    remove_at(e.position);
    release(index);
    return true;
}

std::optional<rtkit::instant> timer_heap::next_deadline() const noexcept {
    if (heap_.empty()) return std::nullopt;
    return rtkit::instant(rtkit::duration(heap_.front().deadline));
}

std::size_t timer_heap::fire(rtkit::instant now) {
    const std::int64_t now_ns = now.time_since_epoch().count();
    std::size_t fired = 0;
    // One at a time from the top: a waker may cancel any timer still armed.
    while (!heap_.empty() && heap_.front().deadline <= now_ns) {
        const std::uint32_t index = heap_.front().index;
        remove_at(0);
        rtkit::waker w = std::move(slab_[index].waker);
        release(index);
        ++fired;
        w.wake();  // after release: the timer is no longer reachable
    }
    return fired;
}

}  // namespace rtkit_heap
