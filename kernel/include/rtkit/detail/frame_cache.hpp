#pragma once
// The fast path of coroutine frame allocation, inline where every frame is
// made and destroyed: a thread's free frames of each size. The kernel's frame
// allocator (kernel/src/frame_allocator.cpp) fills and drains these lists and
// does everything else (carving, the shared stash, large frames, sanitizer
// builds) behind the two calls below.
#include <cstddef>

namespace rtkit::detail {

/// A free frame, linked through its first word.
struct free_frame_block {
    free_frame_block* next;
};

/// A thread's free frames of one size class, the most recently freed first.
struct free_frame_list {
    free_frame_block* head = nullptr;
    std::size_t length = 0;
};

/// Size classes step by 8 bytes up to 1,024 (larger frames come from the
/// global allocator); a thread keeps at most 128 free frames of a class.
inline constexpr std::size_t frame_granule = 8;
inline constexpr std::size_t max_pooled_frame = 1024;
inline constexpr std::size_t free_frames_kept_per_class = 128;

/// This thread's lists, one per class. Null before its first frame, and
/// whenever its frames must take the slow path: a runtime that traces notes
/// frame sizes, the thread is exiting, or a sanitizer build (whose frames
/// come from the global allocator, so the sanitizer sees each one).
extern __thread free_frame_list* free_frames_of_thread __attribute__((tls_model("initial-exec")));

void* allocate_frame_slowly(std::size_t size);
void free_frame_slowly(void* frame, std::size_t size) noexcept;

inline void* allocate_frame(std::size_t size) {
    if (free_frame_list* lists = free_frames_of_thread; lists && size <= max_pooled_frame) {
        free_frame_list& list = lists[(size - 1) / frame_granule];
        if (free_frame_block* b = list.head) {
            list.head = b->next;
            --list.length;
            return b;
        }
    }
    return allocate_frame_slowly(size);
}

inline void free_frame(void* frame, std::size_t size) noexcept {
    if (free_frame_list* lists = free_frames_of_thread; lists && size <= max_pooled_frame) {
        free_frame_list& list = lists[(size - 1) / frame_granule];
        if (list.length < free_frames_kept_per_class) {
            auto* b = static_cast<free_frame_block*>(frame);
            b->next = list.head;
            list.head = b;
            ++list.length;
            return;
        }
    }
    free_frame_slowly(frame, size);
}

}  // namespace rtkit::detail
