// PING, ECHO, QUIT, CONFIG GET.
#include <fnmatch.h>

#include <string>
#include <utility>
#include <vector>

#include "command_handlers.hpp"
#include "rtkit/cx.hpp"
#include "text.hpp"

namespace mini_redis {
namespace {

/// The parameters CONFIG GET shows: this server's options under redis's names,
/// persistence, which it does not have, and its own: whether the polling time
/// adapts, and the runtime's polling time now (in microseconds).
std::vector<std::pair<std::string, std::string>> parameters(const options& o) {
    return {
        {"adaptive-poll", o.adaptive_poll.value_or(false) ? "yes" : "no"},
        {"appendonly", "no"},
        {"bind", o.bind},
        {"client-query-buffer-limit", std::to_string(o.limits.max_request_length)},
        {"maxclients", std::to_string(o.max_clients)},
        {"poll-before-park-us", std::to_string(rtkit::cx::current().poll_before_park().count())},
        {"port", std::to_string(o.port)},
        {"proto-max-bulk-len", std::to_string(o.limits.max_bulk_length)},
        {"save", ""},
    };
}

}  // namespace

// Outside pub/sub "+PONG" (or the argument); while subscribed ["pong", argument].
void ping_command(command_context& c, args_view args) {
    if (args.size() > 2) {
        c.out.error("ERR wrong number of arguments for 'ping' command");
    } else if (c.client.subscribed()) {
        c.out.array(2);
        c.out.bulk("pong");
        c.out.bulk(args.size() == 2 ? args[1] : "");
    } else if (args.size() == 2) {
        c.out.bulk(args[1]);
    } else {
        c.out.simple("PONG");
    }
}

void echo_command(command_context& c, args_view args) {
    c.out.bulk(args[1]);
}

void quit_command(command_context& c, args_view) {
    c.out.simple("OK");
    c.client.quit = true;
}

// CONFIG GET pattern...: name and value of each parameter that a glob matches.
// redis-benchmark asks for "save" and "appendonly" before it starts.
void config_command(command_context& c, args_view args) {
    if (!equals_ignoring_case(args[1], "get")) {
        c.out.error("ERR unknown subcommand '" + std::string(args[1]) + "'. Try CONFIG HELP.");
        return;
    }
    if (args.size() < 3) {
        c.out.error("ERR wrong number of arguments for 'config|get' command");
        return;
    }
    std::vector<std::pair<std::string, std::string>> matched;
    for (auto& parameter : parameters(c.settings)) {
        for (std::size_t i = 2; i < args.size(); ++i) {
            const std::string pattern(args[i]);
            if (fnmatch(pattern.c_str(), parameter.first.c_str(), FNM_CASEFOLD) == 0) {
                matched.push_back(std::move(parameter));
                break;
            }
        }
    }
    c.out.array(2 * matched.size());
    for (const auto& [name, value] : matched) {
        c.out.bulk(name);
        c.out.bulk(value);
    }
}

}  // namespace mini_redis
