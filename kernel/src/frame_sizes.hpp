#pragma once
// The sizes of coroutine frames, for traces (a spawn record's frame_bytes).
// A frame does not store its size, and the frame allocator's chunks mix sizes,
// so once a runtime traces, threads note their last few frame allocations
// (with their size, as the promise's operator new received it) and a traced
// spawn looks its task's frame up there. The threads that note are the one
// that built a tracing runtime and those whose first allocation comes later
// (a runtime's workers); the test shares its load and branch with the
// allocator's own test for a thread whose pool is gone, so allocating costs
// nothing more either way.
#include <cstddef>

namespace rtkit::detail {

/// From now on, for the life of the process, frame allocations are noted.
void note_frame_sizes() noexcept;
/// The size of `frame` if it is among the last few frames this thread
/// allocated while it noted sizes, else 0 (not known: a task made on another
/// thread, on a thread that does not note, or many frames ago).
std::size_t noted_frame_size(const void* frame) noexcept;

}  // namespace rtkit::detail
