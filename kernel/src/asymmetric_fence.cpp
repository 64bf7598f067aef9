#include "asymmetric_fence.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtkit::detail {

namespace {
long membarrier(int command) noexcept {
    return ::syscall(SYS_membarrier, command, 0, 0);
}
}  // namespace

bool heavy_fence_available() noexcept {
    // Registering once per process is enough: it covers threads started later.
    static const bool registered = [] {
        const long commands = membarrier(MEMBARRIER_CMD_QUERY);
        if (commands < 0 || !(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
        return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    }();
    return registered;
}

void heavy_fence() noexcept {
    // It cannot fail once registered (the kernel checks only the registration).
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}

}  // namespace rtkit::detail
