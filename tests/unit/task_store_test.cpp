#include <doctest/doctest.h>

#include <vector>

#include "task_store.hpp"

using rtkit::detail::task_header;
using rtkit::detail::task_store;

TEST_CASE("task store: each live task gets a slot of its own - freed slots are reused") {
    task_store store;
    task_header a, b, c;
    store.insert(&a);
    store.insert(&b);
    CHECK(a.store_index != b.store_index);
    CHECK(store.size() == 2);
    const std::uint32_t freed = a.store_index;
    store.remove(a.store_index);
    CHECK(store.size() == 1);
    store.insert(&c);
    CHECK(c.store_index == freed);
    CHECK(store.size() == 2);
    CHECK(store.removed_total() == 1);
}

TEST_CASE("task store: for_each visits the live tasks only - slots freed last are reused first") {
    task_store store;
    task_header a, b, c, d, e;
    store.insert(&a);
    store.insert(&b);
    store.insert(&c);
    const std::uint32_t slot_a = a.store_index, slot_b = b.store_index;
    store.remove(slot_b);
    store.remove(slot_a);
    store.insert(&d);
    store.insert(&e);
    CHECK(d.store_index == slot_a);
    CHECK(e.store_index == slot_b);
    std::vector<task_header*> seen;
    store.for_each([&](task_header* t) { seen.push_back(t); });
    CHECK(seen == std::vector<task_header*>{&d, &e, &c});
    CHECK(store.size() == 3);
    CHECK(store.removed_total() == 2);
}

TEST_CASE("task store: a slot is reused however often its tasks come and go") {
    task_store store;
    task_header t, other;
    store.insert(&other);
    store.insert(&t);
    const std::uint32_t slot = t.store_index;
    for (int round = 0; round < 1000; ++round) {
        store.remove(t.store_index);
        store.insert(&t);
        CHECK(t.store_index == slot);
    }
    std::vector<task_header*> seen;
    store.for_each([&](task_header* task) { seen.push_back(task); });
    CHECK(seen == std::vector<task_header*>{&other, &t});
}

TEST_CASE(
    "task store: an admitted task counts before it has a slot - for_each lists it once kept") {
    task_store store;
    task_header waiting, short_lived;
    store.admit(&waiting);
    store.admit(&short_lived);
    CHECK(store.size() == 2);
    CHECK(short_lived.store_index == task_store::no_slot);
    std::vector<task_header*> seen;
    store.for_each([&](task_header* t) { seen.push_back(t); });
    CHECK(seen.empty());
    store.keep(&waiting);
    CHECK(waiting.store_index != task_store::no_slot);
    store.for_each([&](task_header* t) { seen.push_back(t); });
    CHECK(seen == std::vector<task_header*>{&waiting});
    store.remove(short_lived.store_index);  // finished in its first poll: no slot to free
    CHECK(store.size() == 1);
    store.remove(waiting.store_index);
    CHECK(store.size() == 0);
    CHECK(store.removed_total() == 2);
}
