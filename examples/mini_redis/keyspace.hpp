#pragma once
// mini_redis::keyspace: string keys and values, each key with an optional
// time to live.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace mini_redis {

/// A point in time in milliseconds on the runtime's clock (the timer
/// driver's, so a virtual clock moves it too). Expiry is kept in these units,
/// as redis keeps it.
using millis = std::int64_t;

/// The keys and their values, and when each key expires.
///
/// A key whose deadline has passed (`now > deadline`, as redis decides) is
/// gone for every lookup: the lookup removes it (lazy expiry). The deadlines
/// are also kept in order, so that remove_expired() can drop expired keys
/// that nobody looks up, at the time next_deadline() says (active expiry).
/// Not thread-safe: the database's lock guards it.
class keyspace {
  public:
    /// The value of `key`, or nullptr when it is missing or expired. Valid
    /// until the keyspace next changes.
    std::string* find(std::string_view key, millis now);
    bool contains(std::string_view key, millis now) { return find(key, now) != nullptr; }

    /// Sets `key` to `value`. Without a deadline the key loses its time to
    /// live; with one, it expires then.
    void set(std::string_view key, std::string_view value, std::optional<millis> deadline);
    /// Sets `key` to `value` keeping the time to live it has (INCR does).
    /// Returns the stored value.
    std::string& set_keeping_deadline(std::string_view key, std::string value, millis now);
    /// Removes `key`; false when it was missing or expired.
    bool erase(std::string_view key, millis now);

    /// Gives an existing `key` a deadline; false when it is missing or expired.
    bool expire_at(std::string_view key, millis deadline, millis now);
    /// The deadline of `key`: nullopt when it is missing or expired, no_deadline
    /// when it has none.
    std::optional<millis> deadline_of(std::string_view key, millis now);
    static constexpr millis no_deadline = -1;

    /// Keys held, the expired ones not yet removed included (DBSIZE counts them too).
    std::size_t size() const noexcept { return keys_.size(); }
    /// The earliest deadline, if any key has one.
    std::optional<millis> next_deadline() const;
    /// Removes up to `limit` expired keys, earliest first; returns how many.
    std::size_t remove_expired(millis now, std::size_t limit);
    /// True once when a deadline earlier than every other was set since the
    /// last call: whoever sleeps until next_deadline() must look again.
    bool take_earlier_deadline() noexcept { return std::exchange(earlier_deadline_, false); }

  private:
    /// Deadlines in order, each with its key (the map node's key, which stays
    /// where it is while the key exists).
    using deadline_index = std::multimap<millis, const std::string*>;
    struct entry {
        std::string value;
        deadline_index::iterator deadline;  ///< deadlines_.end() when none
    };
    /// Hashes std::string and std::string_view alike, so lookups by a request's
    /// string_view build no std::string.
    struct key_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view key) const noexcept {
            return std::hash<std::string_view>{}(key);
        }
    };
    using key_map = std::unordered_map<std::string, entry, key_hash, std::equal_to<>>;

    /// The live entry of `key`, removing it first if it has expired.
    key_map::iterator live(std::string_view key, millis now);
    void set_deadline(key_map::iterator at, millis deadline);
    void clear_deadline(entry& e);

    key_map keys_;
    deadline_index deadlines_;
    bool earlier_deadline_ = false;
};

}  // namespace mini_redis
