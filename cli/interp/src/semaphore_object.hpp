#pragma once
// rtkit::interp::semaphore_object: a script's semaphore, on rtkit::sync::semaphore.
#include <cstddef>

#include <rtkit/sync/semaphore.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// Counted permits that `acquire S { ... }` holds one of for the block's
/// duration, handed out in FIFO order; semaphore(1) is a mutex.
class semaphore_object final : public script::object {
  public:
    static constexpr std::int64_t max_permits = 1 << 20;

    explicit semaphore_object(std::size_t permits) : permits_(permits), gate_(permits) {}

    rtkit::sync::semaphore& gate() noexcept { return gate_; }

    std::string_view type_name() const noexcept override { return "a semaphore"; }
    std::string display() const override { return "semaphore(" + std::to_string(permits_) + ")"; }
    std::vector<std::string_view> field_names() const override { return {"available"}; }
    script::value field(std::string_view, script::source_pos) const override {
        return static_cast<std::int64_t>(gate_.available_permits());
    }

  private:
    std::size_t permits_;
    rtkit::sync::semaphore gate_;
};

}  // namespace rtkit::interp
