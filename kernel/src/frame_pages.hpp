#pragma once
// Which pages the frame chunks a thread maps ask for. Set while the thread
// drives a runtime (scoped_driving): the chunks it maps then follow that
// runtime's runtime_config::huge_pages.
#include <utility>

namespace rtkit::detail {

/// True: the frame chunks this thread maps ask for transparent huge pages;
/// false: they follow the system's policy. A chunk keeps what it was mapped
/// with. A plain (GNU `__thread`) variable in the kernel library's static TLS
/// block, since every block_on sets it.
extern __thread bool frame_chunks_on_huge_pages __attribute__((tls_model("initial-exec")));

/// Sets frame_chunks_on_huge_pages; returns the previous setting.
inline bool map_frames_on_huge_pages(bool huge) noexcept {
    return std::exchange(frame_chunks_on_huge_pages, huge);
}

}  // namespace rtkit::detail
