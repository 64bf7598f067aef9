#pragma once
// rtkit_uring::provided_buffers: a ring of receive buffers the kernel picks
// from (io_uring "provided buffer ring"), for multishot recv.
#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtkit_uring {

/// `count` buffers of `size` bytes registered with one ring as buffer group
/// `group`. A multishot recv with IOSQE_BUFFER_SELECT takes one per
/// completion; the reactor gives it back with recycle() once its bytes were
/// copied out. liburing 2.3 has no io_uring_setup_buf_ring, so the ring's
/// memory is mapped and registered here.
class provided_buffers {
  public:
    static constexpr std::uint16_t group = 0;

    provided_buffers() = default;
    ~provided_buffers();
    provided_buffers(const provided_buffers&) = delete;
    provided_buffers& operator=(const provided_buffers&) = delete;

    /// Registers the buffers with `ring`. `count` is rounded down to a power
    /// of two (at most 32768). Returns the negated errno when the kernel has
    /// no buffer rings (before 5.19): the caller then does without.
    int setup(io_uring& ring, unsigned count, unsigned size);
    /// Registers the same buffers with `to` instead of `from` (which is about
    /// to close, and which the kernel no longer fills them from), offering
    /// it every buffer except those `held` by id (bytes not read yet).
    /// Returns the negated errno when `to` refuses them.
    int move_to(io_uring& from, io_uring& to, const std::vector<bool>& held);
    /// Unregisters (before the ring is closed). Idempotent.
    void teardown(io_uring& ring) noexcept;

    bool ready() const noexcept { return ring_ != nullptr; }
    unsigned size() const noexcept { return size_; }
    /// How many buffers the kernel can still pick from.
    unsigned available() const noexcept { return available_; }
    unsigned count() const noexcept { return count_; }

    std::byte* data(std::uint16_t id) noexcept { return storage_.data() + std::size_t{id} * size_; }
    /// The kernel filled buffer `id` (a completion with IORING_CQE_F_BUFFER).
    void taken() noexcept { --available_; }
    /// Hands buffer `id` back to the kernel.
    void recycle(std::uint16_t id) noexcept;

  private:
    /// Maps a buffer ring, registers it with `ring` and offers it every
    /// buffer not `held` (empty: none is).
    int register_with(io_uring& ring, const std::vector<bool>& held);

    io_uring_buf_ring* ring_ = nullptr;
    std::size_t ring_bytes_ = 0;
    std::vector<std::byte> storage_;
    unsigned count_ = 0;
    unsigned size_ = 0;
    unsigned available_ = 0;
};

}  // namespace rtkit_uring
