#include <doctest/doctest.h>

#include <vector>

#include "task_store.hpp"

using rtkit::detail::task_header;
using rtkit::detail::task_store;

TEST_CASE("task store: ids find their task until it leaves") {
    task_store store;
    task_header a, b;
    auto ia = store.insert(&a);
    auto ib = store.insert(&b);
    CHECK(ia != ib);
    CHECK(store.find(ia) == &a);
    CHECK(store.find(ib) == &b);
    CHECK(store.size() == 2);
    store.remove(ia);
    CHECK(store.find(ia) == nullptr);
    CHECK(store.size() == 1);
}

TEST_CASE("task store: a stale id never aliases the task that reuses its slot") {
    task_store store;
    task_header a, c;
    auto ia = store.insert(&a);
    store.remove(ia);
    auto ic = store.insert(&c);
    CHECK(ic.index() == ia.index());            // the slot was reused
    CHECK(ic.generation() != ia.generation());  // under a new generation
    CHECK(store.find(ia) == nullptr);
    CHECK(store.find(ic) == &c);
    CHECK(store.size() == 1);
}

TEST_CASE("task store: unknown and zero ids find nothing") {
    task_store store;
    CHECK(store.find(rtkit::task_id{}) == nullptr);
    CHECK(store.find(rtkit::task_id{(std::uint64_t{1} << 32) | 99}) == nullptr);
    CHECK(store.size() == 0);
}

TEST_CASE("task store: insert sets the task's id and for_each visits the live tasks only") {
    task_store store;
    task_header a, b, c, d, e;
    const auto ia = store.insert(&a);
    const auto ib = store.insert(&b);
    const auto ic = store.insert(&c);
    CHECK(a.id == ia);
    CHECK(c.id == ic);
    store.remove(ib);
    store.remove(ia);
    const auto id = store.insert(&d);  // reuses the slots freed last-first
    const auto ie = store.insert(&e);
    CHECK(id.index() == ia.index());
    CHECK(ie.index() == ib.index());
    CHECK(d.id == id);
    CHECK(store.find(ia) == nullptr);
    CHECK(store.find(ib) == nullptr);
    CHECK(store.find(ie) == &e);
    std::vector<task_header*> seen;
    store.for_each([&](task_header* t) { seen.push_back(t); });
    CHECK(seen == std::vector<task_header*>{&d, &e, &c});
    CHECK(store.size() == 3);
    CHECK(store.removed_total() == 2);
}

TEST_CASE("task store: a slot's generation moves on with every task it holds") {
    task_store store;
    task_header t;
    rtkit::task_id previous = store.insert(&t);
    for (int round = 0; round < 1000; ++round) {
        store.remove(previous);
        const rtkit::task_id next = store.insert(&t);
        CHECK(next.index() == previous.index());
        CHECK(next.generation() == previous.generation() + 1);
        previous = next;
    }
}
