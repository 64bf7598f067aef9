// The kernel's per-thread state, each a plain (GNU `__thread`) variable in
// the static TLS block of the kernel library, so that reading one on a hot
// path costs one load. Declared where they are used: thread_context.hpp,
// task_header.hpp, coop_budget.hpp, task.hpp.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "rtkit/detail/coop_budget.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/task.hpp"
#include "thread_context.hpp"

namespace rtkit::detail {

__thread task_header* current_task_slot __attribute__((tls_model("initial-exec"))) = nullptr;
__thread bool yield_requested_slot __attribute__((tls_model("initial-exec"))) = false;
__thread std::uint32_t coop_budget_slot __attribute__((tls_model("initial-exec"))) = coop_budget;
__thread void* frame_to_keep_slot __attribute__((tls_model("initial-exec"))) = nullptr;
__thread std::size_t kept_frame_size_slot __attribute__((tls_model("initial-exec"))) = 0;
__thread handle* driving_slot __attribute__((tls_model("initial-exec"))) = nullptr;
__thread const scoped_driving* scoped_driving::innermost_driving_scope
    __attribute__((tls_model("initial-exec"))) = nullptr;
__thread std::uint64_t thread_number_slot __attribute__((tls_model("initial-exec"))) = 0;

std::uint64_t number_this_thread() noexcept {
    static std::atomic<std::uint64_t> threads_numbered{0};
    thread_number_slot = threads_numbered.fetch_add(1, std::memory_order_relaxed) + 1;
    return thread_number_slot;
}

}  // namespace rtkit::detail
