#pragma once
// rtkit::interp::channel_object: a script's channel, on rtkit::sync::channel.
#include <cstddef>
#include <mutex>
#include <optional>

#include <rtkit/sync/channel.hpp>
#include <rtkit/sync/mutex.hpp>
#include <rtkit/task.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// A bounded channel of script values that any number of tasks may send to
/// and receive from (each gets a copy of the same channel). Sending waits
/// while it is full; receiving waits while it is empty and gives none once it
/// is closed and empty. Built on rtkit's multi-producer single-consumer
/// channel: receivers take turns through an rtkit mutex, and `close` drops
/// the one sender the channel keeps (sends already waiting still deliver).
class channel_object final : public script::object {
  public:
    /// Channels hold at most this many values, so a script cannot reserve
    /// memory without bound.
    static constexpr std::int64_t max_capacity = 1 << 20;

    explicit channel_object(std::size_t capacity);

    /// Waits for room, then sends; a runtime error at `where` once closed.
    rtkit::task<void> send(script::value v, script::source_pos where);
    /// The next value, waiting for one; none once closed and empty.
    rtkit::task<script::value> recv();
    /// No more sends; a runtime error at `where` if already closed.
    void close(script::source_pos where);

    std::string_view type_name() const noexcept override { return "a channel"; }
    std::string display() const override { return "channel(" + std::to_string(capacity_) + ")"; }
    std::vector<std::string_view> field_names() const override {
        return {"capacity", "size", "closed"};
    }
    script::value field(std::string_view name, script::source_pos where) const override;
    void release_values() noexcept override;

  private:
    channel_object(std::size_t capacity, rtkit::sync::channel<script::value> ends);

    std::size_t capacity_;
    mutable std::mutex lock_;
    std::optional<rtkit::sync::channel_sender<script::value>>
        sender_;  ///< guarded; none once closed
    rtkit::sync::channel_receiver<script::value> receiver_;
    rtkit::sync::mutex<> receiving_;  ///< one receiver at a time
};

}  // namespace rtkit::interp
