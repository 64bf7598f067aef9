#include "provided_buffers.hpp"

#include <sys/mman.h>

#include <cerrno>

namespace rtkit_uring {

provided_buffers::~provided_buffers() {
    if (ring_) munmap(ring_, ring_bytes_);
}

int provided_buffers::setup(io_uring& ring, unsigned count, unsigned size) {
    unsigned entries = 1;
    while (entries * 2 <= count && entries < 32768)
        entries *= 2;
    count_ = entries;
    size_ = size;
    storage_.resize(std::size_t{entries} * size);
    const int rc = register_with(ring, {});
    if (rc < 0) {
        storage_.clear();
        storage_.shrink_to_fit();
    }
    return rc;
}

int provided_buffers::move_to(io_uring& from, io_uring& to, const std::vector<bool>& held) {
    teardown(from);
    return register_with(to, held);
}

int provided_buffers::register_with(io_uring& ring, const std::vector<bool>& held) {
    // The kernel reads the ring's entries from this memory: it must be page
    // aligned, which an anonymous mapping is.
    const std::size_t bytes = count_ * sizeof(io_uring_buf);
    void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED) return -errno;
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<std::uint64_t>(memory);
    reg.ring_entries = count_;
    reg.bgid = group;
    const int rc = io_uring_register_buf_ring(&ring, &reg, 0);
    if (rc < 0) {
        munmap(memory, bytes);
        return rc;
    }
    ring_ = static_cast<io_uring_buf_ring*>(memory);
    ring_bytes_ = bytes;
    io_uring_buf_ring_init(ring_);
    const int mask = io_uring_buf_ring_mask(count_);
    int offered = 0;
    for (unsigned id = 0; id < count_; ++id)
        if (held.empty() || !held[id])
            io_uring_buf_ring_add(ring_, data(static_cast<std::uint16_t>(id)), size_,
                                  static_cast<unsigned short>(id), mask, offered++);
    io_uring_buf_ring_advance(ring_, offered);
    available_ = static_cast<unsigned>(offered);
    return 0;
}

void provided_buffers::teardown(io_uring& ring) noexcept {
    if (!ring_) return;
    io_uring_unregister_buf_ring(&ring, group);
    munmap(ring_, ring_bytes_);
    ring_ = nullptr;
    available_ = 0;
}

void provided_buffers::recycle(std::uint16_t id) noexcept {
    if (!ring_) return;
    io_uring_buf_ring_add(ring_, data(id), size_, id, io_uring_buf_ring_mask(count_), 0);
    io_uring_buf_ring_advance(ring_, 1);
    ++available_;
}

}  // namespace rtkit_uring
