#pragma once
// mini_redis::pubsub: channels, their subscribers, and publishing to them.
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "outbox.hpp"

namespace mini_redis {

/// One connection's side of pub/sub: the channels it is subscribed to, and the
/// outbox their messages go to. Only its own connection subscribes and
/// unsubscribes it; it must be unsubscribed from everything (pubsub::leave)
/// before its outbox closes and its socket goes.
class subscriber {
  public:
    subscriber(outbox& out, int socket) noexcept : out_(out), socket_(socket) {}

    /// How many channels it is subscribed to (for its own connection).
    std::size_t channel_count() const noexcept { return channels_.size(); }
    /// True once a publisher found its outbox full and dropped it.
    bool dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  private:
    friend class pubsub;
    /// Queues `bytes`; a full outbox drops the client.
    bool deliver(std::string bytes);

    outbox& out_;
    const int socket_;
    std::set<std::string, std::less<>> channels_;  ///< changed under the pubsub lock
    std::atomic<bool> dropped_{false};
};

/// The channels of the server and who listens on each. PUBLISH queues the
/// message in the outbox (an rtkit::sync channel) of each subscriber, whatever
/// worker thread its connection runs on; it never waits: a subscriber whose
/// outbox is full is dropped (its socket shut down, which ends its
/// connection), as redis drops a subscriber past its output buffer limit.
///
/// The confirmations of SUBSCRIBE and UNSUBSCRIBE are queued in the same step
/// as the change, under the same lock as PUBLISH, so a subscriber sees a
/// channel's messages strictly between its two confirmations.
class pubsub {
  public:
    /// SUBSCRIBE one channel (again is harmless): queues
    /// ["subscribe", channel, channels now].
    void subscribe(subscriber& s, std::string_view channel);
    /// UNSUBSCRIBE one channel: queues ["unsubscribe", channel, channels now].
    void unsubscribe(subscriber& s, std::string_view channel);
    /// UNSUBSCRIBE without channels: one confirmation per channel, or
    /// ["unsubscribe", nil, 0] when there was none.
    void unsubscribe_all(subscriber& s);
    /// Takes `s` off every channel without confirmations (its connection ends).
    void leave(subscriber& s);
    /// PUBLISH: queues ["message", channel, message] for each subscriber of
    /// `channel`; returns how many it reached.
    std::size_t publish(std::string_view channel, std::string_view message);

  private:
    struct name_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view name) const noexcept {
            return std::hash<std::string_view>{}(name);
        }
    };
    /// Under lock_: removes `s` from `channel`'s list.
    void remove_locked(subscriber& s, std::string_view channel);

    std::mutex lock_;
    std::unordered_map<std::string, std::vector<subscriber*>, name_hash, std::equal_to<>> channels_;
};

}  // namespace mini_redis
