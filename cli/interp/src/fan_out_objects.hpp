#pragma once
// The script objects that hand every value to many tasks: broadcast (every
// subscriber gets every value), watch (subscribers see the latest value),
// and the subscriptions `subscribe` makes to them, on rtkit::sync's
// broadcast and watch channels.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <rtkit/sync/broadcast.hpp>
#include <rtkit/sync/mutex.hpp>
#include <rtkit/sync/watch.hpp>
#include <rtkit/task.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// What `recv` takes from: a subscription to a broadcast or a watch.
/// Tasks that share one take turns.
class subscription_object : public script::object {
  public:
    /// The next value, waiting for one; none once the source is closed and
    /// nothing is left for this subscription.
    virtual rtkit::task<script::value> recv() = 0;
    std::string_view type_name() const noexcept override { return "a subscription"; }
};

/// What `send`, `subscribe` and `close` act on besides channels: sending
/// never waits, and every subscription sees what is sent after it was made.
class fan_out_object : public script::object {
  public:
    /// An error at `where` once closed.
    virtual void send(script::value v, script::source_pos where) = 0;
    virtual std::shared_ptr<subscription_object> subscribe() = 0;
    /// No more sends; an error at `where` if already closed.
    virtual void close(script::source_pos where) = 0;
};

/// broadcast(N): every subscription gets every value sent after it
/// subscribed, in order. It holds the last N values; a subscription that
/// falls further behind skips to the oldest one held and counts what it
/// missed in `.missed`. A value sent while nobody subscribed goes nowhere.
class broadcast_object final : public fan_out_object {
  public:
    static constexpr std::int64_t max_capacity = 1 << 20;

    explicit broadcast_object(std::size_t capacity);

    void send(script::value v, script::source_pos where) override;
    std::shared_ptr<subscription_object> subscribe() override;
    void close(script::source_pos where) override;

    std::string_view type_name() const noexcept override { return "a broadcast"; }
    std::string display() const override { return "broadcast(" + std::to_string(capacity_) + ")"; }
    std::vector<std::string_view> field_names() const override { return {"capacity", "closed"}; }
    script::value field(std::string_view name, script::source_pos where) const override;
    void release_values() noexcept override;

  private:
    std::size_t capacity_;
    mutable std::mutex lock_;
    std::optional<rtkit::sync::broadcast_sender<script::value>>
        sender_;  ///< guarded; none once closed
};

/// watch(V): one value that `send` replaces. A subscription's `recv` waits
/// until the value changed since it last looked and gives the latest one.
class watch_object final : public fan_out_object {
  public:
    explicit watch_object(script::value initial);

    void send(script::value v, script::source_pos where) override;
    std::shared_ptr<subscription_object> subscribe() override;
    void close(script::source_pos where) override;

    std::string_view type_name() const noexcept override { return "a watch"; }
    std::string display() const override { return "watch"; }
    std::vector<std::string_view> field_names() const override { return {"value", "closed"}; }
    script::value field(std::string_view name, script::source_pos where) const override;
    void release_values() noexcept override;

  private:
    watch_object(rtkit::sync::watch<script::value> ends);

    mutable std::mutex lock_;
    std::optional<rtkit::sync::watch_sender<script::value>> sender_;  ///< guarded; none once closed
    /// Reads the value, closed or not; subscriptions are copies of it.
    /// Dropped only once the script ended.
    std::optional<rtkit::sync::watch_receiver<script::value>> reader_;
};

}  // namespace rtkit::interp
