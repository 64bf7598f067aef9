#pragma once
// mini_redis::read_buffer: the bytes a connection has read and not yet parsed.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace mini_redis {

/// A connection's input: bytes read, of which the front ones are consumed as
/// requests are parsed. It starts at 16 KiB (redis's read size) and grows only
/// for a request that needs more (a big bulk string, whose length the parser
/// knows from its header, so the buffer grows once to hold it), and goes back
/// to 16 KiB once it is empty again.
class read_buffer {
  public:
    static constexpr std::size_t default_size = 16 * 1024;

    read_buffer() : data_(std::make_unique_for_overwrite<char[]>(default_size)) {}

    std::string_view unread() const noexcept { return {data_.get() + begin_, end_ - begin_}; }
    void consume(std::size_t n) noexcept {
        begin_ += n;
        if (begin_ == end_) begin_ = end_ = 0;
    }

    /// Makes room to read into, enough for the unread bytes and the free space
    /// together to hold `request_size` bytes: the request being parsed needs
    /// that many (the parser checked them against the limits).
    void make_room(std::size_t request_size) {
        const std::size_t unread_size = end_ - begin_;
        const std::size_t wanted = std::max({request_size, unread_size + 1, default_size});
        if (capacity_ < wanted) {
            // Doubling: a request that grows by small steps is copied a few times only.
            resize(std::max(wanted, 2 * capacity_));
        } else if (unread_size == 0 && capacity_ > default_size) {
            resize(default_size);  // a big request is done: give its memory back
        } else if (capacity_ - begin_ < wanted || end_ == capacity_) {
            std::memmove(data_.get(), data_.get() + begin_, unread_size);
            begin_ = 0;
            end_ = unread_size;
        }
    }
    char* free_space() noexcept { return data_.get() + end_; }
    std::size_t free_size() const noexcept { return capacity_ - end_; }
    void commit(std::size_t n) noexcept { end_ += n; }

  private:
    /// Moves the unread bytes to the front of a new buffer of `capacity` bytes.
    void resize(std::size_t capacity) {
        auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
        std::memcpy(fresh.get(), data_.get() + begin_, end_ - begin_);
        data_ = std::move(fresh);
        capacity_ = capacity;
        end_ -= begin_;
        begin_ = 0;
    }

    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = default_size;
    std::size_t begin_ = 0, end_ = 0;
};

}  // namespace mini_redis
