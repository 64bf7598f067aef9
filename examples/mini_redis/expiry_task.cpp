#include "expiry_task.hpp"

#include "rtkit/cx.hpp"
#include "runtime_clock.hpp"

namespace mini_redis {
namespace {

constexpr std::size_t keys_per_turn = 256;

rtkit::task<void> deadline_moved(database& db) {
    co_await db.deadline_moved().notified();
}

}  // namespace

rtkit::task<void> expire_keys(database& db) {
    while (true) {
        const std::optional<millis> next = db.lock()->next_deadline();
        if (!next) {
            co_await db.deadline_moved().notified();
            continue;
        }
        const rtkit::instant due = expiry_instant(*next);
        const rtkit::instant now = rtkit::now();
        if (now < due) {
            // Until the deadline, or until an earlier one is set.
            co_await rtkit::timeout(due - now, deadline_moved(db));
            continue;
        }
        while (db.lock()->remove_expired(now_millis(), keys_per_turn) == keys_per_turn)
            co_await rtkit::yield_now();
    }
}

}  // namespace mini_redis
