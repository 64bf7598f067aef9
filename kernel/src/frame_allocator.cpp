// Coroutine frame allocation.
//
// Frames come from 2 MiB chunks, carved by bump pointer, and freed frames are
// kept in per-thread, per-size free lists for reuse. Taking a frame from its
// list and giving one back are inline in rtkit/detail/frame_cache.hpp; the
// functions here do the rest (the first frame of a thread, an empty list, a
// full one, large frames, noting sizes). A chunk is made writable
// a window ahead of the bump pointer (the kernel fills the window's pages at
// once, instead of faulting them in one by one). By default the chunks
// follow the system's huge page policy (a system that backs all anonymous
// memory with huge pages gives each aligned chunk one); a thread driving a
// runtime configured with huge_pages asks for them (frame_pages.hpp). A huge
// page costs one 2 MiB fault on the allocating worker, which on a VM whose
// host took the block back (free page reporting) stalls it for milliseconds,
// and a small runtime would hold 2 MiB per thread. See bench/README.md (W1).
// A frame is often freed on another thread than the one that allocated it (a
// task spawned from outside ends on a worker), so a thread keeps only a few
// free frames of each size: past that it moves a batch to a shared stash, and
// a thread that runs out takes a batch from there before it carves new memory.
// An exiting thread gives its lists and the rest of its chunk to the stash, so
// short-lived threads do not strand memory.
// Under AddressSanitizer frames use the global allocator, so ASan sees each one.
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "frame_pages.hpp"
#include "frame_sizes.hpp"
#include "rtkit/task.hpp"

// GCC says so with __SANITIZE_*__; clang before 15 only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RTKIT_SYSTEM_FRAMES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RTKIT_SYSTEM_FRAMES 1
#endif
#endif

namespace rtkit::detail {

__thread bool frame_chunks_on_huge_pages __attribute__((tls_model("initial-exec"))) = false;
__thread free_frame_list* free_frames_of_thread __attribute__((tls_model("initial-exec"))) =
    nullptr;

namespace {

// Frame sizes for traces (frame_sizes.hpp): off until a runtime traces, then
// the threads remember their last few allocations.
std::atomic<bool> noting_sizes{false};
struct noted_frame {
    const void* frame;
    std::size_t size;
};
constexpr std::size_t noted_count = 8;
[[gnu::tls_model("initial-exec")]] thread_local std::array<noted_frame, noted_count> noted{};
[[gnu::tls_model("initial-exec")]] thread_local std::size_t noted_next = 0;

[[gnu::noinline]] void note_size(const void* frame, std::size_t size) noexcept {
    noted[noted_next++ % noted_count] = {frame, size};
}

}  // namespace

std::size_t noted_frame_size(const void* frame) noexcept {
    for (const noted_frame& n : noted)
        if (n.frame == frame) return n.size;
    return 0;
}

#ifdef RTKIT_SYSTEM_FRAMES

void* allocate_frame_slowly(std::size_t size) {
    void* frame = ::operator new(size);
    if (noting_sizes.load(std::memory_order_relaxed)) note_size(frame, size);
    return frame;
}
void free_frame_slowly(void* frame, std::size_t size) noexcept {
    ::operator delete(frame, size);
}
std::size_t frame_memory_mapped() noexcept {
    return 0;
}
void note_frame_sizes() noexcept {
    noting_sizes.store(true, std::memory_order_relaxed);
}

#else

namespace {

/// Size classes step by 8 bytes. A frame is a struct, so its size is a multiple
/// of its alignment: a size that is not a multiple of 16 needs no more than 8,
/// which the standard allows for operator new of that size. Such frames get
/// 8-byte alignment; the others 16. (A 152-byte task frame then costs 152.)
constexpr std::size_t granule = frame_granule;
constexpr std::size_t max_pooled = max_pooled_frame;  // larger frames use the global allocator
constexpr std::size_t class_count = max_pooled / granule;
constexpr std::size_t chunk_size = std::size_t{2} << 20;
/// A thread's chunk is made writable ahead of its bump pointer in windows,
/// starting at the smallest and doubling up to the largest while the thread
/// keeps carving (a spawn burst), so that the kernel fills a window's pages
/// in one call instead of one page fault each (W1). A thread that allocates
/// little holds at most the first window.
constexpr std::size_t first_window = std::size_t{16} << 10;
constexpr std::size_t largest_window = std::size_t{256} << 10;
static_assert(first_window >= max_pooled && chunk_size % largest_window == 0);

using free_block = free_frame_block;
using free_list = free_frame_list;

/// Frames moved between a thread and the stash at once. A thread keeps at
/// most two batches of each size, so frames freed by one thread and needed
/// by another reach it within a batch.
constexpr std::size_t batch = 64;
constexpr std::size_t kept_per_class = 2 * batch;
static_assert(kept_per_class == free_frames_kept_per_class);

/// What a thread owns (or the stash holds): a free list per size class and
/// the unused tail of its chunk.
struct frame_pool {
    std::array<free_list, class_count> free_lists{};
    /// Carving goes from `bump` up to `bump_end`, the end of the window made
    /// writable so far; the chunk itself ends at `chunk_end`.
    std::byte* bump = nullptr;
    std::byte* bump_end = nullptr;
    std::byte* chunk_end = nullptr;
    std::size_t next_window = first_window;
    /// Per size class: how many more frames to carve before looking at the
    /// stash again, so that carving takes the stash's lock once per batch.
    std::array<std::uint8_t, class_count> carves_before_stash{};
    static_assert(batch - 1 <= UINT8_MAX);
};

/// Moves up to `count` frames from the front of `from` to the front of `to`.
void move_frames(free_list& from, free_list& to, std::size_t count) noexcept {
    if (!from.head || count == 0) return;
    free_block* last = from.head;
    std::size_t moved = 1;
    for (; moved < count && last->next; ++moved)
        last = last->next;
    free_block* first = std::exchange(from.head, last->next);
    from.length -= moved;
    last->next = std::exchange(to.head, first);
    to.length += moved;
}

std::mutex stash_mutex;
frame_pool& stash() {
    static frame_pool* pool = new frame_pool;  // never destroyed: threads may exit late
    return *pool;
}

std::atomic<std::size_t> chunks_mapped{0};

std::byte* map_chunk() {
    // Map twice the size, then trim to a 2 MiB-aligned chunk, so that a huge
    // page fits when the system gives one.
    void* raw = ::mmap(nullptr, 2 * chunk_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto begin = reinterpret_cast<std::uintptr_t>(raw);
    std::uintptr_t aligned = (begin + chunk_size - 1) & ~(chunk_size - 1);
    if (aligned > begin) ::munmap(raw, aligned - begin);
    std::uintptr_t end = begin + 2 * chunk_size;
    if (end > aligned + chunk_size)
        ::munmap(reinterpret_cast<void*>(aligned + chunk_size), end - aligned - chunk_size);
    if (frame_chunks_on_huge_pages)
        ::madvise(reinterpret_cast<void*>(aligned), chunk_size, MADV_HUGEPAGE);
    chunks_mapped.fetch_add(1, std::memory_order_relaxed);
    return reinterpret_cast<std::byte*>(aligned);
}

/// What makes this thread's allocations leave the fast path, one load for both:
/// its pool is gone (frames freed by later thread-exit code), or it notes
/// frame sizes (frame_sizes.hpp: a runtime traces).
namespace special {
enum : std::uint8_t { pool_gone = 1, noting = 2 };
}
[[gnu::tls_model("initial-exec")]] thread_local std::uint8_t allocation_special = 0;
/// This thread's pool once created: one %fs-relative load on the hot path.
[[gnu::tls_model("initial-exec")]] thread_local frame_pool* pool_of_thread = nullptr;

/// Gives the longer of the two unused chunk tails to `to`.
void keep_longer_tail(frame_pool& to, frame_pool& from) noexcept {
    if (!to.bump || (from.chunk_end - from.bump) > (to.chunk_end - to.bump)) {
        to.bump = from.bump;
        to.bump_end = from.bump_end;
        to.chunk_end = from.chunk_end;
    }
    from.bump = from.bump_end = from.chunk_end = nullptr;
}

struct thread_pool {
    frame_pool pool;
    thread_pool() {
        std::lock_guard lock(stash_mutex);
        keep_longer_tail(pool, stash());  // free frames it takes in batches when it needs them
    }
    ~thread_pool() {
        std::lock_guard lock(stash_mutex);
        for (std::size_t cls = 0; cls < class_count; ++cls)
            move_frames(pool.free_lists[cls], stash().free_lists[cls], pool.free_lists[cls].length);
        keep_longer_tail(stash(), pool);
        allocation_special |= special::pool_gone;
        pool_of_thread = nullptr;
        free_frames_of_thread = nullptr;
    }
};

frame_pool& create_local_pool() {
    static thread_local thread_pool pool;  // registers the exit hand-over
    if (noting_sizes.load(std::memory_order_relaxed)) allocation_special |= special::noting;
    pool_of_thread = &pool.pool;
    // The header's inline path serves this thread from now on, unless its
    // allocations must note their sizes.
    if (!allocation_special) free_frames_of_thread = pool.pool.free_lists.data();
    return pool.pool;
}

frame_pool& local_pool() {
    return pool_of_thread ? *pool_of_thread : create_local_pool();
}

void push(free_list& list, void* frame) noexcept {
    auto* b = static_cast<free_block*>(frame);
    b->next = std::exchange(list.head, b);
    ++list.length;
}

free_block* pop(free_list& list) noexcept {
    free_block* b = list.head;
    if (b) {
        list.head = b->next;
        --list.length;
    }
    return b;
}

/// MADV_POPULATE_WRITE (Linux 5.14), which older headers lack.
constexpr int populate_write = 23;
/// Set once the kernel refused it: the pages then fault in one by one.
std::atomic<bool> populate_refused{false};

/// Makes room for `needed` bytes: the next window of the chunk, or a new
/// chunk when the rest of this one is too short for the frame at hand.
[[gnu::noinline]] void extend(frame_pool& pool, std::size_t needed) {
    if (pool.chunk_end - pool.bump < static_cast<std::ptrdiff_t>(needed)) {
        pool.bump = pool.bump_end = map_chunk();
        pool.chunk_end = pool.bump + chunk_size;
    }
    const std::size_t window =
        std::min<std::size_t>(pool.next_window, pool.chunk_end - pool.bump_end);
    // Best effort: a page it could not fill faults in when first written.
    if (!populate_refused.load(std::memory_order_relaxed) &&
        ::madvise(pool.bump_end, window, populate_write) != 0 && errno == EINVAL)
        populate_refused.store(true, std::memory_order_relaxed);
    pool.bump_end += window;
    pool.next_window = std::min(2 * pool.next_window, largest_window);
}

/// Where a frame of `rounded` bytes starts at the bump pointer: it is always
/// 8-aligned (chunks are 2 MiB-aligned, steps are multiples of 8); a
/// 16-multiple size may skip 8 bytes to reach 16.
std::size_t alignment_skip(const frame_pool& pool, std::size_t rounded) noexcept {
    return rounded % 16 == 0 ? reinterpret_cast<std::uintptr_t>(pool.bump) % 16 : 0;
}

/// carve() when the window has no room left: makes room first.
[[gnu::noinline]] void* carve_extending(frame_pool& pool, std::size_t rounded) {
    extend(pool, alignment_skip(pool, rounded) + rounded);
    const std::size_t skip = alignment_skip(pool, rounded);  // 0 in a new chunk
    void* frame = pool.bump + skip;
    pool.bump += skip + rounded;
    return frame;
}

/// A new frame of class `cls` from the pool's chunk (a new chunk when it is
/// used up). Its only call is a tail call, so the fast path needs no frame.
[[gnu::always_inline]] inline void* carve(frame_pool& pool, std::size_t cls) {
    const std::size_t rounded = (cls + 1) * granule;
    const std::size_t skip = alignment_skip(pool, rounded);
    if (pool.bump_end - pool.bump < static_cast<std::ptrdiff_t>(skip + rounded)) [[unlikely]]
        return carve_extending(pool, rounded);
    void* frame = pool.bump + skip;
    pool.bump += skip + rounded;
    return frame;
}

/// A thread's list of class `cls` ran dry and it has carved a batch since it
/// last looked: it takes a batch from the stash, or else carves for the next
/// `batch` allocations (allocate_from).
///
/// Carved frames are handed out one at a time, so that frames allocated one
/// after another lie one after another in ascending order: tasks spawned in a
/// row then run in address order too, which the hardware prefetches (W1: 98 ->
/// 82 ns per task against carving a batch onto the list, which reversed it).
[[gnu::noinline]] void* refill(frame_pool& pool, std::size_t cls) {
    free_list& list = pool.free_lists[cls];
    {
        std::lock_guard lock(stash_mutex);
        move_frames(stash().free_lists[cls], list, batch);
    }
    if (free_block* b = pop(list)) return b;
    pool.carves_before_stash[cls] = batch - 1;
    return carve(pool, cls);
}

/// A thread holds more free frames of one size than it keeps: a batch goes to the stash.
[[gnu::noinline]] void spill(free_list& list, std::size_t cls) noexcept {
    std::lock_guard lock(stash_mutex);
    move_frames(list, stash().free_lists[cls], batch);
}

void* allocate_from(frame_pool& pool, std::size_t size) {
    const std::size_t cls = (size - 1) / granule;
    if (free_block* b = pop(pool.free_lists[cls])) return b;
    if (pool.carves_before_stash[cls] > 0) {
        --pool.carves_before_stash[cls];
        return carve(pool, cls);
    }
    return refill(pool, cls);
}

void free_to(frame_pool& pool, void* frame, std::size_t size) noexcept {
    const std::size_t cls = (size - 1) / granule;
    free_list& list = pool.free_lists[cls];
    push(list, frame);
    if (list.length > kept_per_class) spill(list, cls);
}

// A thread whose pool is gone (thread-exit code running after it) uses the
// stash under its lock. Kept out of line, so the fast paths stay leaf code.

[[gnu::noinline]] void* allocate_from_stash(std::size_t size) {
    std::lock_guard lock(stash_mutex);
    const std::size_t cls = (size - 1) / granule;
    if (free_block* b = pop(stash().free_lists[cls])) return b;
    return carve(stash(), cls);
}

[[gnu::noinline]] void free_to_stash(void* frame, std::size_t size) noexcept {
    std::lock_guard lock(stash_mutex);
    push(stash().free_lists[(size - 1) / granule], frame);
}

/// An allocation off the fast path: a frame too large to pool, a thread
/// with allocation_special set, or its first frame.
[[gnu::noinline]] void* allocate_specially(std::size_t size) {
    if (size > max_pooled) {
        void* frame = ::operator new(size);
        if (noting_sizes.load(std::memory_order_relaxed)) note_size(frame, size);
        return frame;
    }
    void* frame = allocation_special & special::pool_gone ? allocate_from_stash(size)
                                                          : allocate_from(local_pool(), size);
    if (allocation_special & special::noting) note_size(frame, size);
    return frame;
}

/// A free off the fast path: a frame too large to pool, a thread whose pool
/// is gone, or one that has not made its pool yet.
[[gnu::noinline]] void free_specially(void* frame, std::size_t size) noexcept {
    if (size > max_pooled)
        ::operator delete(frame, size);
    else if (allocation_special & special::pool_gone)
        free_to_stash(frame, size);
    else
        free_to(local_pool(), frame, size);
}

}  // namespace

void* allocate_frame_slowly(std::size_t size) {
    frame_pool* const pool = pool_of_thread;
    if (size > max_pooled || allocation_special || !pool) [[unlikely]]
        return allocate_specially(size);
    return allocate_from(*pool, size);
}

void note_frame_sizes() noexcept {
    noting_sizes.store(true, std::memory_order_relaxed);
    // Threads that allocate from now on start noting; this one (which built
    // the runtime, and may call its block_on) at once.
    if (!(allocation_special & special::pool_gone)) allocation_special |= special::noting;
    free_frames_of_thread = nullptr;
}

std::size_t frame_memory_mapped() noexcept {
    return chunks_mapped.load(std::memory_order_relaxed) * chunk_size;
}

void free_frame_slowly(void* frame, std::size_t size) noexcept {
    frame_pool* const pool = pool_of_thread;
    if (size > max_pooled || !pool) [[unlikely]]
        return free_specially(frame, size);
    free_to(*pool, frame, size);
}

#endif

}  // namespace rtkit::detail
