#pragma once
// mini_redis::database: the keyspace as the server's connections share it.
#include <mutex>

#include "keyspace.hpp"
#include "rtkit/sync/notify.hpp"

namespace mini_redis {

/// The keyspace, shared by every connection (on whatever worker thread each
/// runs) under one lock, which a command holds for its whole run and never
/// across an await. The expiry task (expire_keys) sleeps until the earliest
/// deadline; a command that sets an earlier one wakes it through
/// deadline_moved().
class database {
  public:
    /// The keyspace, locked while this lives.
    class locked {
      public:
        explicit locked(database& db) : db_(db), guard_(db.lock_) {}
        locked(const locked&) = delete;
        locked& operator=(const locked&) = delete;
        ~locked() {
            const bool wake = db_.keys_.take_earlier_deadline();
            guard_.unlock();
            if (wake) db_.deadline_moved_.notify_one();
        }
        keyspace* operator->() const noexcept { return &db_.keys_; }
        keyspace& operator*() const noexcept { return db_.keys_; }

      private:
        database& db_;
        std::unique_lock<std::mutex> guard_;
    };

    locked lock() { return locked(*this); }
    /// Notified when a deadline earlier than all others was set.
    rtkit::sync::notify& deadline_moved() noexcept { return deadline_moved_; }

  private:
    std::mutex lock_;
    keyspace keys_;
    rtkit::sync::notify deadline_moved_;
};

}  // namespace mini_redis
