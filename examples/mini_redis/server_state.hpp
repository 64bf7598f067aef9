#pragma once
// mini_redis::server_state: what every connection of the server shares.
#include "client_list.hpp"
#include "database.hpp"
#include "options.hpp"
#include "pubsub.hpp"

namespace mini_redis {

struct server_state {
    explicit server_state(const options& settings)
        : settings(settings), clients(settings.max_clients) {}

    const options& settings;
    database db;
    pubsub channels;
    client_list clients;
};

}  // namespace mini_redis
