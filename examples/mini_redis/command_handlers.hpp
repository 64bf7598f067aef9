#pragma once
// The commands, one function each; command_table.cpp says which name runs
// which, with how many arguments. `args` holds the command's name first and
// has as many words as the table allows.
#include <span>
#include <string_view>

#include "commands.hpp"

namespace mini_redis {

using args_view = std::span<const std::string_view>;

// keys_commands.cpp: strings and their keys.
void get_command(command_context& c, args_view args);
void set_command(command_context& c, args_view args);
void del_command(command_context& c, args_view args);
void exists_command(command_context& c, args_view args);
void incr_command(command_context& c, args_view args);
void decr_command(command_context& c, args_view args);
void mget_command(command_context& c, args_view args);
void mset_command(command_context& c, args_view args);
void dbsize_command(command_context& c, args_view args);

// expiry_commands.cpp: time to live.
void expire_command(command_context& c, args_view args);
void ttl_command(command_context& c, args_view args);
void pttl_command(command_context& c, args_view args);

// pubsub_commands.cpp
void publish_command(command_context& c, args_view args);
void subscribe_command(command_context& c, args_view args);
void unsubscribe_command(command_context& c, args_view args);

// connection_commands.cpp: the connection and the server.
void ping_command(command_context& c, args_view args);
void echo_command(command_context& c, args_view args);
void quit_command(command_context& c, args_view args);
void config_command(command_context& c, args_view args);

}  // namespace mini_redis
