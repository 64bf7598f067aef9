#include "rtkit/diagnostics.hpp"

#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

namespace rtkit {

namespace {

std::mutex hook_mutex;
/// Shared, so a report in flight keeps the hook it started with alive while
/// another thread installs a new one.
std::shared_ptr<const diagnostic_hook> installed_hook;

void print_to_stderr(const diagnostic& d) {
    std::fprintf(stderr, "rtkit: %s\n", d.message.c_str());
}

}  // namespace

diagnostic_hook set_diagnostic_hook(diagnostic_hook hook) {
    auto next = hook ? std::make_shared<const diagnostic_hook>(std::move(hook)) : nullptr;
    std::lock_guard lock(hook_mutex);
    std::shared_ptr<const diagnostic_hook> previous = std::exchange(installed_hook, next);
    return previous ? *previous : diagnostic_hook{};
}

void report_diagnostic(const diagnostic& d) noexcept {
    try {
        std::shared_ptr<const diagnostic_hook> hook;
        {
            std::lock_guard lock(hook_mutex);
            hook = installed_hook;
        }
        if (hook)
            (*hook)(d);
        else
            print_to_stderr(d);
    } catch (...) {
        // A diagnostic must never take the runtime down.
    }
}

}  // namespace rtkit
