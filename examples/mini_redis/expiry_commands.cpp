// EXPIRE, TTL, PTTL.
#include <optional>
#include <string>

#include "command_handlers.hpp"
#include "text.hpp"

namespace mini_redis {
namespace {

/// TTL and PTTL: -2 for a missing key, -1 for a key without a deadline, else
/// what is left (rounded to the nearest second for TTL, as redis does).
void reply_time_left(command_context& c, std::string_view key, bool in_seconds) {
    const std::optional<millis> deadline = c.db.lock()->deadline_of(key, c.now);
    if (!deadline) {
        c.out.integer(-2);
    } else if (*deadline == keyspace::no_deadline) {
        c.out.integer(-1);
    } else {
        const millis left = *deadline > c.now ? *deadline - c.now : 0;
        c.out.integer(in_seconds ? (left + 500) / 1000 : left);
    }
}

}  // namespace

// EXPIRE key seconds [NX | XX | GT | LT]: 1 when the deadline was set (one
// not after now removes the key at once), 0 when the key is missing or the
// condition does not hold. NX: only a key without a deadline; XX: only one
// with a deadline; GT, LT: only a later, an earlier deadline (no deadline
// counts as infinitely late).
void expire_command(command_context& c, args_view args) {
    bool nx = false, xx = false, gt = false, lt = false;
    for (std::size_t i = 3; i < args.size(); ++i) {
        if (equals_ignoring_case(args[i], "nx"))
            nx = true;
        else if (equals_ignoring_case(args[i], "xx"))
            xx = true;
        else if (equals_ignoring_case(args[i], "gt"))
            gt = true;
        else if (equals_ignoring_case(args[i], "lt"))
            lt = true;
        else {
            c.out.error("ERR Unsupported option " + std::string(args[i]));
            return;
        }
    }
    if (nx && (xx || gt || lt)) {
        c.out.error("ERR NX and XX, GT or LT options at the same time are not compatible");
        return;
    }
    if (gt && lt) {
        c.out.error("ERR GT and LT options at the same time are not compatible");
        return;
    }
    const auto seconds = parse_int64(args[2]);
    if (!seconds) {
        c.out.error("ERR value is not an integer or out of range");
        return;
    }
    millis ttl = 0, deadline = 0;
    if (__builtin_mul_overflow(*seconds, 1000, &ttl) ||
        __builtin_add_overflow(c.now, ttl, &deadline)) {
        c.out.error("ERR invalid expire time in 'expire' command");
        return;
    }
    auto keys = c.db.lock();
    const std::optional<millis> current = keys->deadline_of(args[1], c.now);
    const bool has_deadline = current && *current != keyspace::no_deadline;
    if (!current || (nx && has_deadline) || (xx && !has_deadline) ||
        (gt && (!has_deadline || deadline <= *current)) ||
        (lt && has_deadline && deadline >= *current)) {
        c.out.integer(0);
        return;
    }
    if (deadline <= c.now)
        keys->erase(args[1], c.now);
    else
        keys->expire_at(args[1], deadline, c.now);
    c.out.integer(1);
}

void ttl_command(command_context& c, args_view args) {
    reply_time_left(c, args[1], true);
}

void pttl_command(command_context& c, args_view args) {
    reply_time_left(c, args[1], false);
}

}  // namespace mini_redis
