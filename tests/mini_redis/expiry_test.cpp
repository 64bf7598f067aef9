// Expiry through redis-cli, on each runtime: keys go at their deadline on the
// runtime's timer even when nobody looks them up, and TTL counts down.
//
// These run on the real clock. Waiting for a key to go is a bounded poll of
// DBSIZE (which looks no key up, so only the expiry task can make it drop),
// never a sleep. (tests/mini_redis/keyspace_test.cpp checks lazy expiry with
// the time given by the test.)
#include <doctest/doctest.h>

#include <string>

#include "processes.hpp"

using namespace mini_redis_test;

namespace {

/// Asks DBSIZE until it says `keys`, at most `attempts` times; true if it did.
bool dbsize_reaches(std::uint16_t port, int keys, int attempts = 2000) {
    const std::string wanted = "(integer) " + std::to_string(keys) + "\n";
    for (int i = 0; i < attempts; ++i)
        if (redis_cli(port, {"DBSIZE"}).out == wanted) return true;
    return false;
}

}  // namespace

TEST_CASE(
    "expiry: keys go at their deadline without a lookup - an earlier deadline wakes the timer") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        // The expiry task sleeps until the first deadline, 1000 s away; the
        // keys set next expire much sooner and must wake it.
        const run_result setup_keys = redis_cli(
            s.port(), {}, "SET far v EX 1000\nSET forever v\nSET soon v PX 1\nSET soon2 v PX 20\n");
        CHECK(setup_keys.out == "OK\nOK\nOK\nOK\n");
        CHECK(dbsize_reaches(s.port(), 2));
        CHECK(redis_cli(s.port(), {}, "GET soon\nGET soon2\nGET far\nGET forever\n").out ==
              "(nil)\n(nil)\n\"v\"\n\"v\"\n");
    }
}

TEST_CASE("expiry: many keys expiring together all go") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        std::string commands;
        for (int i = 0; i < 3000; ++i)
            commands += "SET key:" + std::to_string(i) + " v PX 5\r\n";
        const run_result pipe = redis_cli(s.port(), {"--pipe"}, commands);
        CHECK(pipe.out.find("errors: 0, replies: 3000") != std::string::npos);
        CHECK(dbsize_reaches(s.port(), 0));
    }
}

TEST_CASE("expiry: TTL and PTTL count down from EX and PX - EXPIRE sets - SET clears") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        const run_result r = redis_cli(s.port(), {},
                                       "SET a v EX 100\nPTTL a\nSET b v PX 5000\nPTTL b\n"
                                       "SET c v\nEXPIRE c 20\nPTTL c\nSET c v\nPTTL c\n");
        REQUIRE(r.status == 0);
        std::vector<long> values;
        std::size_t at = 0;
        while ((at = r.out.find("(integer) ", at)) != std::string::npos) {
            at += 10;
            values.push_back(std::stol(r.out.substr(at)));
        }
        REQUIRE(values.size() == 5);
        // What is left: at most the whole time to live, and not less than a
        // slow machine could take between the two commands.
        CHECK(values[0] <= 100000);
        CHECK(values[0] > 90000);
        CHECK(values[1] <= 5000);
        CHECK(values[1] > 0);
        CHECK(values[2] == 1);
        CHECK(values[3] <= 20000);
        CHECK(values[3] > 10000);
        CHECK(values[4] == -1);
    }
}
