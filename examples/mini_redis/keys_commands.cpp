// GET, SET, DEL, EXISTS, INCR, DECR, MGET, MSET, DBSIZE.
#include <optional>
#include <string>

#include "command_handlers.hpp"
#include "text.hpp"

namespace mini_redis {
namespace {

constexpr std::string_view not_an_integer = "ERR value is not an integer or out of range";

/// The deadline of SET's EX or PX: `amount` seconds or milliseconds from now.
/// Writes redis's error and returns nullopt when it is no valid time to live.
std::optional<millis> set_deadline(command_context& c, std::string_view amount, bool seconds) {
    const auto value = parse_int64(amount);
    if (!value) {
        c.out.error(not_an_integer);
        return std::nullopt;
    }
    millis ttl = *value;
    millis deadline = 0;
    if (ttl <= 0 || (seconds && __builtin_mul_overflow(ttl, 1000, &ttl)) ||
        __builtin_add_overflow(c.now, ttl, &deadline)) {
        c.out.error("ERR invalid expire time in 'set' command");
        return std::nullopt;
    }
    return deadline;
}

void add_to_integer(command_context& c, std::string_view key, std::int64_t delta) {
    auto keys = c.db.lock();
    std::int64_t value = 0;
    if (const std::string* current = keys->find(key, c.now)) {
        const auto parsed = parse_int64(*current);
        if (!parsed) {
            c.out.error(not_an_integer);
            return;
        }
        value = *parsed;
    }
    if (__builtin_add_overflow(value, delta, &value)) {
        c.out.error("ERR increment or decrement would overflow");
        return;
    }
    keys->set_keeping_deadline(key, std::to_string(value), c.now);
    c.out.integer(value);
}

}  // namespace

void get_command(command_context& c, args_view args) {
    auto keys = c.db.lock();
    if (const std::string* value = keys->find(args[1], c.now))
        c.out.bulk(*value);
    else
        c.out.null();
}

// SET key value [NX | XX] [EX seconds | PX milliseconds]
void set_command(command_context& c, args_view args) {
    bool nx = false, xx = false;
    std::optional<std::string_view> ex, px;
    for (std::size_t i = 3; i < args.size(); ++i) {
        const std::string_view option = args[i];
        const bool has_next = i + 1 < args.size();
        if (equals_ignoring_case(option, "nx") && !xx) {
            nx = true;
        } else if (equals_ignoring_case(option, "xx") && !nx) {
            xx = true;
        } else if (equals_ignoring_case(option, "ex") && !px && has_next) {
            ex = args[++i];
        } else if (equals_ignoring_case(option, "px") && !ex && has_next) {
            px = args[++i];
        } else {
            c.out.error("ERR syntax error");
            return;
        }
    }
    std::optional<millis> deadline;
    if (ex || px) {
        deadline = set_deadline(c, ex ? *ex : *px, ex.has_value());
        if (!deadline) return;
    }
    auto keys = c.db.lock();
    if (nx || xx) {
        if (keys->contains(args[1], c.now) != xx) {
            c.out.null();
            return;
        }
    }
    keys->set(args[1], args[2], deadline);
    c.out.simple("OK");
}

void del_command(command_context& c, args_view args) {
    auto keys = c.db.lock();
    std::int64_t removed = 0;
    for (std::size_t i = 1; i < args.size(); ++i)
        removed += keys->erase(args[i], c.now) ? 1 : 0;
    c.out.integer(removed);
}

void exists_command(command_context& c, args_view args) {
    auto keys = c.db.lock();
    std::int64_t found = 0;
    for (std::size_t i = 1; i < args.size(); ++i)
        found += keys->contains(args[i], c.now) ? 1 : 0;
    c.out.integer(found);
}

void incr_command(command_context& c, args_view args) {
    add_to_integer(c, args[1], 1);
}

void decr_command(command_context& c, args_view args) {
    add_to_integer(c, args[1], -1);
}

void mget_command(command_context& c, args_view args) {
    auto keys = c.db.lock();
    c.out.array(args.size() - 1);
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (const std::string* value = keys->find(args[i], c.now))
            c.out.bulk(*value);
        else
            c.out.null();
    }
}

void mset_command(command_context& c, args_view args) {
    if (args.size() % 2 == 0) {
        c.out.error("ERR wrong number of arguments for 'mset' command");
        return;
    }
    auto keys = c.db.lock();
    for (std::size_t i = 1; i < args.size(); i += 2)
        keys->set(args[i], args[i + 1], std::nullopt);
    c.out.simple("OK");
}

void dbsize_command(command_context& c, args_view) {
    c.out.integer(static_cast<std::int64_t>(c.db.lock()->size()));
}

}  // namespace mini_redis
