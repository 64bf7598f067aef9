// --adaptive-poll: the server chooses how long its runtime polls before it
// sleeps from how many commands each read brings; CONFIG GET
// poll-before-park-us shows the time chosen.
#include <doctest/doctest.h>

#include <string>

#include "processes.hpp"
#include "raw_client.hpp"

using namespace mini_redis_test;

namespace {

const std::string ping = "*1\r\n$4\r\nPING\r\n";
const std::string pong = "+PONG\r\n";

/// `rounds` round trips of `depth` PINGs sent in one write: a read of the
/// server's brings all of them (one small segment on loopback).
void ping_in_pipelines(std::uint16_t port, int depth, int rounds = 200) {
    raw_client client(port);
    std::string pipeline, replies;
    for (int i = 0; i < depth; ++i) {
        pipeline += ping;
        replies += pong;
    }
    for (int i = 0; i < rounds; ++i) {
        REQUIRE(client.send(pipeline));
        REQUIRE(client.read(replies.size()) == replies);
    }
}

/// What CONFIG GET says of `parameter`, as redis-cli prints it.
std::string config_get(std::uint16_t port, const std::string& parameter) {
    return redis_cli(port, {"CONFIG", "GET", parameter}).out;
}

std::string shown(const std::string& parameter, const std::string& value) {
    return "1) \"" + parameter + "\"\n2) \"" + value + "\"\n";
}

bool is_current_thread(const setup& runtime) {
    return runtime.name.find("current_thread") != std::string::npos;
}

}  // namespace

TEST_CASE("adaptive poll: pipelined reads make the server poll long - single commands briefly") {
    for (const setup& runtime : setups()) {
        if (!is_current_thread(runtime)) continue;
        INFO(runtime.name);
        server s(runtime);
        CHECK(config_get(s.port(), "adaptive-poll") == shown("adaptive-poll", "yes"));
        // The default curve: 2 us at one command per read, 10 us from 8 on.
        ping_in_pipelines(s.port(), 16);
        CHECK(config_get(s.port(), "poll-before-park-us") == shown("poll-before-park-us", "10"));
        ping_in_pipelines(s.port(), 1);
        CHECK(config_get(s.port(), "poll-before-park-us") == shown("poll-before-park-us", "2"));
        ping_in_pipelines(s.port(), 4);  // between: 2 + 8 * 3 / 7
        CHECK(config_get(s.port(), "poll-before-park-us") == shown("poll-before-park-us", "5"));
    }
}

TEST_CASE("adaptive poll: a fixed time or --adaptive-poll no keeps the time") {
    for (const setup& runtime : setups()) {
        if (!is_current_thread(runtime)) continue;
        INFO(runtime.name);
        {
            server s(runtime, {"--set", "runtime.poll_before_park_us=12"});
            CHECK(config_get(s.port(), "adaptive-poll") == shown("adaptive-poll", "no"));
            ping_in_pipelines(s.port(), 16);
            CHECK(config_get(s.port(), "poll-before-park-us") ==
                  shown("poll-before-park-us", "12"));
        }
        {
            server s(runtime, {"--adaptive-poll", "no"});
            ping_in_pipelines(s.port(), 16);
            CHECK(config_get(s.port(), "poll-before-park-us") == shown("poll-before-park-us", "0"));
        }
        {
            // Asked for, it starts from the given time.
            server s(runtime,
                     {"--adaptive-poll", "yes", "--set", "runtime.poll_before_park_us=12"});
            CHECK(config_get(s.port(), "poll-before-park-us") ==
                  shown("poll-before-park-us", "12"));
            ping_in_pipelines(s.port(), 16);
            CHECK(config_get(s.port(), "poll-before-park-us") ==
                  shown("poll-before-park-us", "10"));
        }
        {
            server s(runtime, {"--adaptive-poll-curve", "4,32,8"});
            ping_in_pipelines(s.port(), 4);  // 4 + 28 * 3 / 7
            CHECK(config_get(s.port(), "poll-before-park-us") ==
                  shown("poll-before-park-us", "16"));
        }
    }
}

TEST_CASE("adaptive poll: off by default on multi_thread - whose workers do not poll") {
    for (const setup& runtime : setups()) {
        if (is_current_thread(runtime)) continue;
        INFO(runtime.name);
        server s(runtime);
        CHECK(config_get(s.port(), "adaptive-poll") == shown("adaptive-poll", "no"));
        ping_in_pipelines(s.port(), 16);
        CHECK(config_get(s.port(), "poll-before-park-us") == shown("poll-before-park-us", "0"));
    }
}
