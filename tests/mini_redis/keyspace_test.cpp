// The keyspace on its own, with the time given by the test: lazy expiry on
// lookup, and the deadline order that active expiry follows.
#include <doctest/doctest.h>

#include "keyspace.hpp"

using mini_redis::keyspace;
using mini_redis::millis;

TEST_CASE("keyspace: a key is gone for every lookup once now passes its deadline") {
    keyspace keys;
    keys.set("k", "v", millis{1000});
    keys.set("forever", "v", std::nullopt);
    CHECK(keys.find("k", 999) != nullptr);
    CHECK(keys.find("k", 1000) != nullptr);  // expired means now > deadline, as in redis
    CHECK(keys.deadline_of("k", 1000) == 1000);
    CHECK(keys.deadline_of("forever", 1000) == keyspace::no_deadline);
    CHECK(keys.size() == 2);
    CHECK(keys.find("k", 1001) == nullptr);
    CHECK(keys.size() == 1);  // the lookup removed it
    CHECK(!keys.next_deadline());
    // Every kind of lookup expires it.
    keys.set("a", "v", millis{10});
    CHECK(!keys.contains("a", 11));
    keys.set("a", "v", millis{10});
    CHECK(!keys.erase("a", 11));
    keys.set("a", "v", millis{10});
    CHECK(!keys.expire_at("a", 100, 11));
    keys.set("a", "v", millis{10});
    CHECK(!keys.deadline_of("a", 11));
    keys.set("a", "1", millis{10});
    CHECK(keys.set_keeping_deadline("a", "2", 11) == "2");
    CHECK(keys.deadline_of("a", 11) == keyspace::no_deadline);  // a new key: no deadline
    CHECK(keys.size() == 2);
}

TEST_CASE("keyspace: SET drops a deadline - set_keeping_deadline keeps it - expire_at moves it") {
    keyspace keys;
    keys.set("k", "1", millis{100});
    CHECK(keys.set_keeping_deadline("k", "2", 0) == "2");
    CHECK(keys.deadline_of("k", 0) == 100);
    CHECK(keys.expire_at("k", 50, 0));
    CHECK(keys.deadline_of("k", 0) == 50);
    CHECK(keys.next_deadline() == 50);
    keys.set("k", "3", std::nullopt);
    CHECK(keys.deadline_of("k", 0) == keyspace::no_deadline);
    CHECK(!keys.next_deadline());
    CHECK(keys.erase("k", 0));
    CHECK(keys.size() == 0);
}

TEST_CASE("keyspace: remove_expired takes the earliest deadlines first - at most the limit") {
    keyspace keys;
    for (int i = 0; i < 10; ++i)
        keys.set("k" + std::to_string(i), "v", millis{100 - i});  // k9 first
    keys.set("forever", "v", std::nullopt);
    CHECK(keys.next_deadline() == 91);
    CHECK(keys.remove_expired(95, 100) == 4);  // 91 .. 94
    CHECK(keys.size() == 7);
    CHECK(keys.find("k5", 0) != nullptr);  // deadline 95: not expired at 95
    CHECK(keys.remove_expired(1000, 2) == 2);
    CHECK(keys.remove_expired(1000, 100) == 4);
    CHECK(keys.size() == 1);
    CHECK(!keys.next_deadline());
}

TEST_CASE("keyspace: an earlier deadline than all others is reported once") {
    keyspace keys;
    CHECK(!keys.take_earlier_deadline());
    keys.set("a", "v", millis{100});
    CHECK(keys.take_earlier_deadline());
    CHECK(!keys.take_earlier_deadline());
    keys.set("b", "v", millis{200});  // later: the expiry task's wake-up stands
    CHECK(!keys.take_earlier_deadline());
    CHECK(keys.expire_at("b", 50, 0));
    CHECK(keys.take_earlier_deadline());
}
