// PUBLISH and SUBSCRIBE with two real clients, on each runtime, and a
// subscriber that never reads.
#include <doctest/doctest.h>

#include <string>

#include "processes.hpp"
#include "raw_client.hpp"

using namespace mini_redis_test;

TEST_CASE("pubsub: a subscriber gets each message of its channels in order - through redis-cli") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        // Not a terminal: redis-cli prints each part of a message on a line of its own.
        child subscriber({REDIS_CLI, "-p", std::to_string(s.port()), "SUBSCRIBE", "news", "sport"});
        for (const char* line : {"subscribe", "news", "1", "subscribe", "sport", "2"})
            REQUIRE(subscriber.read_line() == line);
        std::string publishes, counts;
        for (int i = 0; i < 50; ++i) {
            publishes += "PUBLISH news \"n " + std::to_string(i) + "\"\nPUBLISH sport s" +
                         std::to_string(i) + "\nPUBLISH nobody x\n";
            counts += "(integer) 1\n(integer) 1\n(integer) 0\n";
        }
        CHECK(redis_cli(s.port(), {}, publishes).out == counts);
        for (int i = 0; i < 50; ++i) {
            for (const std::string& line :
                 {std::string("message"), std::string("news"), "n " + std::to_string(i),
                  std::string("message"), std::string("sport"), "s" + std::to_string(i)})
                REQUIRE(subscriber.read_line() == line);
        }
    }
}

TEST_CASE("pubsub: UNSUBSCRIBE stops the messages - the connection leaves subscribed mode") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        raw_client c(s.port());
        c.send("SUBSCRIBE a b\r\n");
        const std::string confirmations =
            "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n";
        REQUIRE(c.read(confirmations.size()) == confirmations);
        CHECK(redis_cli(s.port(), {"PUBLISH", "a", "hi"}).out == "(integer) 1\n");
        const std::string message = "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n";
        CHECK(c.read(message.size()) == message);
        c.send("UNSUBSCRIBE a\r\nPING\r\nGET k\r\n");
        const std::string replies =
            "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n"
            "-ERR Can't execute 'get': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in "
            "this context\r\n";
        CHECK(c.read(replies.size()) == replies);
        CHECK(redis_cli(s.port(), {"PUBLISH", "a", "hi"}).out == "(integer) 0\n");
        c.send("UNSUBSCRIBE\r\nGET k\r\n");
        const std::string last = "*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n$-1\r\n";
        CHECK(c.read(last.size()) == last);
    }
}

TEST_CASE("pubsub: a subscriber that never reads is dropped - the others get every message") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime, {"--output-buffer-limit", "1mb"});
        raw_client stalled(s.port(), 4096);
        raw_client reader(s.port());
        const std::string confirmation = "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n";
        for (raw_client* c : {&stalled, &reader}) {
            c->send("SUBSCRIBE ch\r\n");
            REQUIRE(c->read(confirmation.size()) == confirmation);
        }
        // 8 MB in rounds of 10 messages, the reader taking each round before
        // the next: it is never more than 100 kB behind, while the stalled
        // subscriber's backlog passes the kernel's buffers and then the limit.
        const std::string payload(10000, 'm');
        const std::string message =
            "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$10000\r\n" + payload + "\r\n";
        std::string round;
        for (int i = 0; i < 10; ++i)
            round += "PUBLISH ch " + payload + "\r\n";
        raw_client publisher(s.port());
        std::string counts;
        for (int r = 0; r < 80; ++r) {
            publisher.send(round);
            counts += publisher.read(40);  // ten ":N\r\n"
            REQUIRE(reader.read(10 * message.size()) == [&] {
                std::string ten;
                for (int i = 0; i < 10; ++i)
                    ten += message;
                return ten;
            }());
        }
        // Both subscribers got the first messages; the stalled one stopped
        // counting once it was dropped.
        CHECK(counts.substr(0, 4) == ":2\r\n");
        CHECK(counts.substr(counts.size() - 4) == ":1\r\n");
        bool closed = false;
        stalled.read_until_closed(closed, 30s);
        CHECK(closed);
        publisher.send("PUBLISH ch x\r\n");
        CHECK(publisher.read(4) == ":1\r\n");
    }
}
