#pragma once
// rtkit::detail::block_array: an array that grows a block at a time and never moves an element.
#include <cstddef>
#include <memory>
#include <vector>

namespace rtkit::detail {

/// A growable array whose elements stay where they are: it adds a block of
/// 2^BlockBits default-constructed elements when it fills, and indexes with a
/// shift and a mask. A std::vector doubles by moving every element into a new
/// array that it then faults in page by page, all at once: with 100,000
/// timers in a timer driver that stalled its worker for milliseconds (11 us
/// per fresh page on a VM), while no timer fired. Growing here costs one
/// block. (boost::container::deque also never moves, but its general
/// indexing cost a timer driver about 60 instructions per arm and cancel.)
///
/// Elements past size() that a pop_back() left behind keep their value until
/// emplace_back() resets them. Not thread-safe.
template <class T, unsigned BlockBits = 10>
class block_array {
  public:
    static constexpr std::size_t block_size = std::size_t{1} << BlockBits;

    T& operator[](std::size_t i) noexcept { return blocks_[i >> BlockBits][i & (block_size - 1)]; }
    const T& operator[](std::size_t i) const noexcept {
        return blocks_[i >> BlockBits][i & (block_size - 1)];
    }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    T& front() noexcept { return (*this)[0]; }
    const T& front() const noexcept { return (*this)[0]; }
    T& back() noexcept { return (*this)[size_ - 1]; }

    /// Appends a default value and returns it; may throw std::bad_alloc
    /// (then nothing changed).
    T& emplace_back() {
        if (size_ == blocks_.size() * block_size) {
            auto block = std::make_unique<T[]>(block_size);
            blocks_.push_back(std::move(block));  // on a throw, the block goes
        } else {
            (*this)[size_] = T{};
        }
        return (*this)[size_++];
    }
    void pop_back() noexcept { --size_; }

  private:
    std::vector<std::unique_ptr<T[]>> blocks_;
    std::size_t size_ = 0;
};

}  // namespace rtkit::detail
