// PUBLISH, SUBSCRIBE, UNSUBSCRIBE.
#include "command_handlers.hpp"

namespace mini_redis {

void publish_command(command_context& c, args_view args) {
    c.out.integer(static_cast<std::int64_t>(c.channels.publish(args[1], args[2])));
}

// The confirmations go to the outbox at once (pubsub orders them with the
// messages), so the replies written before them go first.
void subscribe_command(command_context& c, args_view args) {
    c.client.flush();
    for (std::size_t i = 1; i < args.size(); ++i)
        c.channels.subscribe(c.client.subscriptions, args[i]);
}

void unsubscribe_command(command_context& c, args_view args) {
    c.client.flush();
    if (args.size() == 1) c.channels.unsubscribe_all(c.client.subscriptions);
    for (std::size_t i = 1; i < args.size(); ++i)
        c.channels.unsubscribe(c.client.subscriptions, args[i]);
}

}  // namespace mini_redis
