#pragma once
// mini_redis::session: what a connection's commands keep between them.
#include <string>

#include "outbox.hpp"
#include "pubsub.hpp"

namespace mini_redis {

/// One client's state as its commands see it: the replies of the commands
/// run since the last flush, its subscriptions, and whether it is done.
struct session {
    session(outbox& out, int socket) noexcept : out(out), subscriptions(out, socket) {}

    outbox& out;
    subscriber subscriptions;
    /// Replies not yet handed to the outbox: a read's worth of commands is
    /// answered in one push, so a pipeline's replies go out in one write.
    std::string replies;
    bool quit = false;     ///< QUIT or a malformed request: close after the replies
    bool dropped = false;  ///< the outbox refused: close at once, unanswered

    bool subscribed() const noexcept { return subscriptions.channel_count() > 0; }
    /// Hands the pending replies to the outbox; a refusal drops the client.
    void flush() {
        if (replies.empty() || dropped) return;
        const std::size_t size = replies.size();
        if (!out.push(std::move(replies))) dropped = true;
        // The next batch is likely as big: one allocation instead of a string
        // growing by doubling (small replies stay in the string itself).
        replies.clear();
        replies.reserve(size);
    }
};

}  // namespace mini_redis
