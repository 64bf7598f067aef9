// Coroutine frame allocation.
//
// Spawn-heavy work is dominated by first-touch page faults on this kind of
// machine, so frames come from 2 MiB chunks that ask for transparent huge pages,
// and freed frames are kept in per-thread, per-size free lists for reuse.
// A thread's lists and the rest of its chunk go to a shared stash when it exits,
// and the next thread adopts them, so short-lived threads do not strand memory.
// Under AddressSanitizer frames use the global allocator, so ASan sees each one.
#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include "rtkit/task.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RTKIT_SYSTEM_FRAMES 1
#endif

namespace rtkit::detail {

#ifdef RTKIT_SYSTEM_FRAMES

void* allocate_frame(std::size_t size) {
    return ::operator new(size);
}
void free_frame(void* frame, std::size_t size) noexcept {
    ::operator delete(frame, size);
}
std::size_t frame_memory_mapped() noexcept {
    return 0;
}

#else

namespace {

/// Size classes step by 8 bytes. A frame is a struct, so its size is a multiple
/// of its alignment: a size that is not a multiple of 16 needs no more than 8,
/// which the standard allows for operator new of that size. Such frames get
/// 8-byte alignment; the others 16. (A 152-byte task frame then costs 152.)
constexpr std::size_t granule = 8;
constexpr std::size_t max_pooled = 1024;  // larger frames use the global allocator
constexpr std::size_t class_count = max_pooled / granule;
constexpr std::size_t chunk_size = std::size_t{2} << 20;

struct free_block {
    free_block* next;
};

/// What a thread owns: a free list per size class and the unused tail of its chunk.
struct frame_pool {
    std::array<free_block*, class_count> free_lists{};
    /// The last block of each list (the first one pushed into it while empty),
    /// so whole lists splice in O(1) when a thread exits.
    std::array<free_block*, class_count> free_tails{};
    std::byte* bump = nullptr;
    std::byte* bump_end = nullptr;

    void merge_from(frame_pool& other) noexcept {
        for (std::size_t i = 0; i < class_count; ++i) {
            if (!other.free_lists[i]) continue;
            other.free_tails[i]->next = free_lists[i];
            if (!free_lists[i]) free_tails[i] = other.free_tails[i];
            free_lists[i] = other.free_lists[i];
            other.free_lists[i] = other.free_tails[i] = nullptr;
        }
        if (!bump || (other.bump_end - other.bump) > (bump_end - bump)) {
            bump = other.bump;
            bump_end = other.bump_end;
        }
        other.bump = other.bump_end = nullptr;
    }
};

std::mutex stash_mutex;
frame_pool& stash() {
    static frame_pool* pool = new frame_pool;  // never destroyed: threads may exit late
    return *pool;
}

std::atomic<std::size_t> chunks_mapped{0};

std::byte* map_chunk() {
    // Map twice the size, then trim to a 2 MiB-aligned chunk so huge pages fit.
    void* raw = ::mmap(nullptr, 2 * chunk_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto begin = reinterpret_cast<std::uintptr_t>(raw);
    std::uintptr_t aligned = (begin + chunk_size - 1) & ~(chunk_size - 1);
    if (aligned > begin) ::munmap(raw, aligned - begin);
    std::uintptr_t end = begin + 2 * chunk_size;
    if (end > aligned + chunk_size)
        ::munmap(reinterpret_cast<void*>(aligned + chunk_size), end - aligned - chunk_size);
    ::madvise(reinterpret_cast<void*>(aligned), chunk_size, MADV_HUGEPAGE);
    chunks_mapped.fetch_add(1, std::memory_order_relaxed);
    return reinterpret_cast<std::byte*>(aligned);
}

/// Set once this thread's pool is gone (frames freed by later thread-exit code).
[[gnu::tls_model("initial-exec")]] thread_local bool pool_gone = false;
/// This thread's pool once created: one %fs-relative load on the hot path.
[[gnu::tls_model("initial-exec")]] thread_local frame_pool* pool_of_thread = nullptr;

struct thread_pool {
    frame_pool pool;
    thread_pool() {
        std::lock_guard lock(stash_mutex);
        pool.merge_from(stash());
    }
    ~thread_pool() {
        std::lock_guard lock(stash_mutex);
        stash().merge_from(pool);
        pool_gone = true;
        pool_of_thread = nullptr;
    }
};

frame_pool& create_local_pool() {
    static thread_local thread_pool pool;  // registers the exit hand-over
    pool_of_thread = &pool.pool;
    return pool.pool;
}

frame_pool& local_pool() {
    return pool_of_thread ? *pool_of_thread : create_local_pool();
}

void* allocate_from(frame_pool& pool, std::size_t size) {
    const std::size_t cls = (size - 1) / granule;
    if (free_block* b = pool.free_lists[cls]) {
        pool.free_lists[cls] = b->next;
        if (!b->next) pool.free_tails[cls] = nullptr;
        return b;
    }
    const std::size_t rounded = (cls + 1) * granule;
    // The bump pointer is always 8-aligned (chunks are 2 MiB-aligned, steps are
    // multiples of 8); a 16-multiple size may skip 8 bytes to reach 16.
    const std::size_t skip =
        rounded % 16 == 0 ? reinterpret_cast<std::uintptr_t>(pool.bump) % 16 : 0;
    if (pool.bump_end - pool.bump < static_cast<std::ptrdiff_t>(skip + rounded)) {
        pool.bump = map_chunk();
        pool.bump_end = pool.bump + chunk_size;
        return allocate_from(pool, size);
    }
    void* frame = pool.bump + skip;
    pool.bump += skip + rounded;
    return frame;
}

void free_to(frame_pool& pool, void* frame, std::size_t size) noexcept {
    auto* b = static_cast<free_block*>(frame);
    const std::size_t cls = (size - 1) / granule;
    if (!pool.free_lists[cls]) pool.free_tails[cls] = b;
    b->next = pool.free_lists[cls];
    pool.free_lists[cls] = b;
}

}  // namespace

void* allocate_frame(std::size_t size) {
    if (size > max_pooled) return ::operator new(size);
    if (pool_gone) {
        std::lock_guard lock(stash_mutex);
        return allocate_from(stash(), size);
    }
    return allocate_from(local_pool(), size);
}

std::size_t frame_memory_mapped() noexcept {
    return chunks_mapped.load(std::memory_order_relaxed) * chunk_size;
}

void free_frame(void* frame, std::size_t size) noexcept {
    if (size > max_pooled) {
        ::operator delete(frame, size);
    } else if (pool_gone) {
        std::lock_guard lock(stash_mutex);
        free_to(stash(), frame, size);
    } else {
        free_to(local_pool(), frame, size);
    }
}

#endif

}  // namespace rtkit::detail
