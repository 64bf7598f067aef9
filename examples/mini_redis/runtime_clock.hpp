#pragma once
// The runtime's clock in the milliseconds the keyspace counts in.
#include <chrono>

#include "keyspace.hpp"
#include "rtkit/cx.hpp"

namespace mini_redis {

/// Now on the runtime's clock (the timer driver's: real, or virtual in a test
/// runtime). Call it from a task.
inline millis now_millis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(rtkit::now().time_since_epoch())
        .count();
}

/// The first instant at which a key with deadline `deadline` has expired
/// (expired means `now > deadline`).
inline rtkit::instant expiry_instant(millis deadline) {
    return rtkit::instant(std::chrono::milliseconds(deadline + 1));
}

}  // namespace mini_redis
