#pragma once
// Running the server on a runtime.
#include "options.hpp"
#include "rtkit/runtime.hpp"

namespace mini_redis {

/// Listens on the address `settings` names and serves clients on `rt`, a
/// task per connection (and its writer), plus the expiry task. Prints
/// "ready to accept connections on ADDRESS:PORT" on stdout once it listens.
/// Returns the process's exit status: 1 when it cannot listen (why, on stderr).
int serve(rtkit::runtime& rt, const options& settings);

}  // namespace mini_redis
