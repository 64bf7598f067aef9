#pragma once
// mini_redis::server_state: what every connection of the server shares.
#include "client_list.hpp"
#include "database.hpp"
#include "options.hpp"
#include "poll_tuner.hpp"
#include "pubsub.hpp"

namespace mini_redis {

struct server_state {
    explicit server_state(const options& settings)
        : settings(settings),
          clients(settings.max_clients),
          poll_time(settings.adaptive_poll.value_or(false), settings.adaptive_poll_curve) {}

    const options& settings;
    database db;
    pubsub channels;
    client_list clients;
    /// The runtime's polling time before sleeping (--adaptive-poll).
    poll_tuner poll_time;
};

}  // namespace mini_redis
