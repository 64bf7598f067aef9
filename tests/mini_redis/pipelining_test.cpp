// Pipelines: requests split anywhere, many in one read, redis-cli --pipe, and
// a short redis-benchmark run in which every request must be answered.
#include <doctest/doctest.h>

#include <string>

#include "processes.hpp"
#include "raw_client.hpp"

using namespace mini_redis_test;

TEST_CASE(
    "pipelining: requests split at every byte or sent all at once get the same replies in order") {
    std::string requests, replies;
    for (int i = 0; i < 40; ++i) {
        const std::string n = std::to_string(i);
        requests += "*3\r\n$3\r\nSET\r\n$" + std::to_string(n.size() + 2) + "\r\nk:" + n + "\r\n$" +
                    std::to_string(n.size()) + "\r\n" + n + "\r\n";
        requests += "INCR k:" + n + "\r\n";  // the inline form
        requests += "*2\r\n$3\r\nGET\r\n$" + std::to_string(n.size() + 2) + "\r\nk:" + n + "\r\n";
        const std::string next = std::to_string(i + 1);
        replies +=
            "+OK\r\n:" + next + "\r\n$" + std::to_string(next.size()) + "\r\n" + next + "\r\n";
    }
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        {
            raw_client whole(s.port());
            whole.send(requests);
            CHECK(whole.read(replies.size()) == replies);
        }
        raw_client bytewise(s.port());
        for (char byte : requests)
            bytewise.send(std::string_view(&byte, 1));
        CHECK(bytewise.read(replies.size()) == replies);
    }
}

TEST_CASE("pipelining: redis-cli --pipe sends 20000 requests and gets every reply") {
    std::string commands;
    for (int i = 0; i < 10000; ++i)
        commands += "SET key:" + std::to_string(i) + " " + std::to_string(i) +
                    "\r\nINCR key:" + std::to_string(i) + "\r\n";
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        const run_result pipe = redis_cli(s.port(), {"--pipe"}, commands);
        CHECK(pipe.status == 0);
        CHECK(pipe.out.find("errors: 0, replies: 20000") != std::string::npos);
        CHECK(redis_cli(s.port(), {}, "DBSIZE\nGET key:0\nGET key:9999\n").out ==
              "(integer) 10000\n\"1\"\n\"10000\"\n");
    }
}

TEST_CASE("pipelining: redis-benchmark gets an answer to every request") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        const run_result bench =
            run({REDIS_BENCHMARK, "-p", std::to_string(s.port()), "-t", "ping,set,get", "-n",
                 "4000", "-c", "20", "-P", "8", "--csv"});
        INFO(bench.out << bench.err);
        // redis-benchmark waits for every reply, and exits 1 on an error reply.
        CHECK(bench.status == 0);
        for (const char* test : {"\"PING_INLINE\"", "\"PING_MBULK\"", "\"SET\"", "\"GET\""})
            CHECK(bench.out.find(test) != std::string::npos);
        // Its SET stored a 3-byte value (-d's default) under its key.
        const std::string value = redis_cli(s.port(), {"GET", "key:__rand_int__"}).out;
        CHECK(value.size() == 6);  // "abc" and a newline
        CHECK(value.front() == '"');
    }
}
