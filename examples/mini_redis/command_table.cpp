// The command table, and execute(): finding a command and checking it may run.
#include <array>
#include <cstddef>
#include <string>

#include "command_handlers.hpp"
#include "commands.hpp"

namespace mini_redis {
namespace {

struct command_spec {
    std::string_view name;  ///< lower case, as redis names it in errors
    /// Words including the name: N exactly, or at least -N when negative (redis's convention).
    int arity;
    bool allowed_when_subscribed;
    void (*run)(command_context&, args_view);
};

constexpr std::array commands{
    command_spec{"get", 2, false, get_command},
    command_spec{"set", -3, false, set_command},
    command_spec{"del", -2, false, del_command},
    command_spec{"exists", -2, false, exists_command},
    command_spec{"incr", 2, false, incr_command},
    command_spec{"decr", 2, false, decr_command},
    command_spec{"mget", -2, false, mget_command},
    command_spec{"mset", -3, false, mset_command},
    command_spec{"dbsize", 1, false, dbsize_command},
    command_spec{"expire", -3, false, expire_command},
    command_spec{"ttl", 2, false, ttl_command},
    command_spec{"pttl", 2, false, pttl_command},
    command_spec{"publish", 3, false, publish_command},
    command_spec{"subscribe", -2, true, subscribe_command},
    command_spec{"unsubscribe", -1, true, unsubscribe_command},
    command_spec{"ping", -1, true, ping_command},
    command_spec{"echo", 2, false, echo_command},
    command_spec{"quit", -1, true, quit_command},
    command_spec{"config", -2, false, config_command},
};

/// The command named `name` in any case, or nullptr.
const command_spec* find_command(std::string_view name) noexcept {
    constexpr std::size_t longest = 11;  // "unsubscribe"
    if (name.size() > longest) return nullptr;
    char lower[longest];
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char ch = name[i];
        lower[i] = ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
    const std::string_view wanted(lower, name.size());
    for (const command_spec& spec : commands)
        if (spec.name == wanted) return &spec;
    return nullptr;
}

bool arity_allows(int arity, std::size_t words) noexcept {
    return arity >= 0 ? words == static_cast<std::size_t>(arity)
                      : words >= static_cast<std::size_t>(-arity);
}

/// redis's words: the name and the first arguments, each quoted, cut at 128 bytes.
std::string unknown_command_error(args_view args) {
    std::string error = "ERR unknown command '" + std::string(args[0].substr(0, 128)) +
                        "', with args beginning with: ";
    std::string quoted;
    for (std::size_t i = 1; i < args.size() && quoted.size() < 128; ++i)
        quoted += "'" + std::string(args[i].substr(0, 128 - quoted.size())) + "' ";
    return error + quoted;
}

}  // namespace

void execute(command_context& c, std::span<const std::string_view> args) {
    const command_spec* spec = find_command(args[0]);
    if (!spec) {
        c.out.error(unknown_command_error(args));
        return;
    }
    if (!arity_allows(spec->arity, args.size())) {
        c.out.error("ERR wrong number of arguments for '" + std::string(spec->name) + "' command");
        return;
    }
    if (c.client.subscribed() && !spec->allowed_when_subscribed) {
        c.out.error("ERR Can't execute '" + std::string(spec->name) +
                    "': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context");
        return;
    }
    spec->run(c, args);
}

}  // namespace mini_redis
