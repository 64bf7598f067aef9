#pragma once
// Which pages the frame chunks a thread maps ask for. Set while the thread
// runs a runtime's tasks or block_on roots (scoped_driving, and the runtime's
// block_on): the chunks it maps then follow that runtime's
// runtime_config::huge_pages.
#include <utility>

namespace rtkit::detail {

/// True: the frame chunks this thread maps ask for transparent huge pages;
/// false: they follow the system's policy. A chunk keeps what it was mapped
/// with. A plain (GNU `__thread`) variable in the kernel library's static TLS
/// block, since every block_on sets it.
extern __thread bool frame_chunks_on_huge_pages __attribute__((tls_model("initial-exec")));

/// Sets frame_chunks_on_huge_pages for one scope.
class scoped_frame_pages {
  public:
    explicit scoped_frame_pages(bool huge) noexcept
        : saved_(std::exchange(frame_chunks_on_huge_pages, huge)) {}
    ~scoped_frame_pages() { frame_chunks_on_huge_pages = saved_; }
    scoped_frame_pages(const scoped_frame_pages&) = delete;
    scoped_frame_pages& operator=(const scoped_frame_pages&) = delete;

  private:
    bool saved_;
};

}  // namespace rtkit::detail
