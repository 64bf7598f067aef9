#pragma once
// Records every diagnostic rtkit reports while it lives, for tests of what
// the runtime says (the hook it replaces comes back afterwards).
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "rtkit/diagnostics.hpp"

namespace rtkit::test {

class recorded_diagnostics {
  public:
    recorded_diagnostics() {
        previous_ = set_diagnostic_hook([this](const diagnostic& d) {
            std::lock_guard lock(mutex_);
            seen_.push_back(d);
            count_.fetch_add(1);
        });
    }
    ~recorded_diagnostics() { set_diagnostic_hook(std::move(previous_)); }
    recorded_diagnostics(const recorded_diagnostics&) = delete;
    recorded_diagnostics& operator=(const recorded_diagnostics&) = delete;

    std::size_t count() const { return count_.load(); }
    std::vector<diagnostic> seen() {
        std::lock_guard lock(mutex_);
        return seen_;
    }

  private:
    diagnostic_hook previous_;
    std::mutex mutex_;
    std::vector<diagnostic> seen_;
    std::atomic<std::size_t> count_{0};
};

}  // namespace rtkit::test
