#include "task_store.hpp"

#include <sys/mman.h>

#include <new>
#include <stdexcept>
#include <string>

namespace rtkit::detail {

namespace {

/// 2^27 slots (1 GiB of address space, not of memory) per worker; when the
/// address space is limited (ulimit -v), smaller ranges are tried down to 2^20.
constexpr unsigned max_slot_bits = 27;
constexpr unsigned min_slot_bits = 20;

}  // namespace

task_store::task_store(bool huge_pages) {
    for (unsigned bits = max_slot_bits; bits >= min_slot_bits; --bits) {
        const std::size_t bytes = (std::size_t{1} << bits) * sizeof(slot);
        void* range = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (range == MAP_FAILED) continue;
        if (huge_pages) ::madvise(range, bytes, MADV_HUGEPAGE);
        slots_ = static_cast<slot*>(range);
        capacity_ = std::uint32_t{1} << bits;
        return;
    }
    throw std::bad_alloc();
}

task_store::~task_store() {
    ::munmap(slots_, std::size_t{capacity_} * sizeof(slot));
}

void task_store::throw_full() const {
    throw std::length_error("rtkit: more than " + std::to_string(capacity_) +
                            " live tasks on one worker");
}

}  // namespace rtkit::detail
