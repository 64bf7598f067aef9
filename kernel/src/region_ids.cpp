// Region ids: unique within the process, never reused.
#include <atomic>

#include "rtkit/detail/region_node.hpp"

namespace rtkit::detail {

std::uint64_t next_region_id() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace rtkit::detail
