#pragma once
// Running the server on a runtime.
#include "options.hpp"
#include "rtkit/runtime.hpp"

namespace mini_redis {

/// Listens on the address `settings` names and serves clients on `rt`, a
/// task per connection (and its writer), plus the expiry task. Prints
/// "ready to accept connections on ADDRESS:PORT" on stdout once it listens.
///
/// Runs until SIGINT or SIGTERM, then stops (saying so in one line on
/// stderr): closes the listener, lets every connection run the requests it
/// has read and write their replies, closes idle ones, and returns once all
/// are gone, or at settings.shutdown_timeout, cancelling those left. A second
/// signal during the stop cancels them at once.
/// Returns the process's exit status: 0 after a stop, 1 when it cannot listen
/// (why, on stderr) or after a second signal.
int serve(rtkit::runtime& rt, const options& settings);

}  // namespace mini_redis
