#pragma once
// Running one command: the context it runs in, and the dispatch.
#include <span>
#include <string_view>

#include "database.hpp"
#include "keyspace.hpp"
#include "options.hpp"
#include "pubsub.hpp"
#include "reply.hpp"
#include "session.hpp"

namespace mini_redis {

/// What a command runs with: the server's shared state, its client's session,
/// where its reply goes, and the time (read once per batch of commands).
struct command_context {
    command_context(database& db, pubsub& channels, const options& settings, session& client,
                    millis now)
        : db(db),
          channels(channels),
          settings(settings),
          client(client),
          out(client.replies),
          now(now) {}

    database& db;
    pubsub& channels;
    const options& settings;
    session& client;
    reply out;
    millis now;
};

/// Runs the command `args` (its name first; at least one word) and writes its
/// reply, or the error redis gives: an unknown command, a wrong number of
/// arguments, a command not allowed while subscribed.
void execute(command_context& c, std::span<const std::string_view> args);

}  // namespace mini_redis
