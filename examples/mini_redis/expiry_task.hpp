#pragma once
// The task that removes keys when their time to live ends.
#include "database.hpp"
#include "rtkit/task.hpp"

namespace mini_redis {

/// Removes each key with a deadline once it has passed, whether or not anyone
/// looks the key up (active expiry; lookups also drop an expired key: lazy
/// expiry). Sleeps on a runtime timer until the earliest deadline, and wakes
/// early when a command sets an earlier one. Removes at most a few hundred
/// keys between yields, so that many keys expiring together do not hold up the
/// connections. Runs until cancelled.
rtkit::task<void> expire_keys(database& db);

}  // namespace mini_redis
