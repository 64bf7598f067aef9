#pragma once
// rtkit::sync::detail::ring_buffer<T>: the fixed-size storage of a bounded channel.
#include <cstddef>
#include <memory>
#include <utility>

namespace rtkit::sync::detail {

/// At most `capacity` values in FIFO order, in one allocation made up front,
/// so sending never allocates. Not thread-safe: the channel's lock guards it.
template <class T>
class ring_buffer {
  public:
    explicit ring_buffer(std::size_t capacity)
        : slots_(std::allocator<T>{}.allocate(capacity)), capacity_(capacity) {}
    ring_buffer(const ring_buffer&) = delete;
    ring_buffer& operator=(const ring_buffer&) = delete;
    ~ring_buffer() {
        clear();
        std::allocator<T>{}.deallocate(slots_, capacity_);
    }

    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }
    std::size_t capacity() const noexcept { return capacity_; }

    /// Precondition: size() < capacity() (the channel's slot permits ensure it).
    template <class U>
    void push_back(U&& value) {
        std::size_t tail = head_ + size_;
        if (tail >= capacity_) tail -= capacity_;
        std::construct_at(slots_ + tail, std::forward<U>(value));
        ++size_;  // only once constructed: a throwing constructor changes nothing
    }
    /// Puts a value back in front. Precondition: size() < capacity().
    template <class U>
    void push_front(U&& value) {
        std::size_t front = head_ == 0 ? capacity_ - 1 : head_ - 1;
        std::construct_at(slots_ + front, std::forward<U>(value));
        head_ = front;
        ++size_;
    }
    /// Precondition: !empty().
    T pop_front() {
        T& slot = slots_[head_];
        T value(std::move(slot));
        std::destroy_at(&slot);
        if (++head_ == capacity_) head_ = 0;
        --size_;
        return value;
    }
    void clear() noexcept {
        while (size_ > 0) {
            std::destroy_at(slots_ + head_);
            if (++head_ == capacity_) head_ = 0;
            --size_;
        }
    }
    /// Exchanges contents (same capacity), so values can be destroyed outside a lock.
    void swap(ring_buffer& other) noexcept {
        std::swap(slots_, other.slots_);
        std::swap(capacity_, other.capacity_);
        std::swap(head_, other.head_);
        std::swap(size_, other.size_);
    }

  private:
    T* slots_;
    std::size_t capacity_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace rtkit::sync::detail
