#include <doctest/doctest.h>

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
    store.remove(ia);  // removing by the stale id must not remove c
    CHECK(store.find(ic) == &c);
    CHECK(store.size() == 1);
}

TEST_CASE("task store: unknown and zero ids find nothing") {
    task_store store;
    CHECK(store.find(rtkit::task_id{}) == nullptr);
    CHECK(store.find(rtkit::task_id{(std::uint64_t{1} << 32) | 99}) == nullptr);
    store.remove(rtkit::task_id{(std::uint64_t{1} << 32) | 99});
    CHECK(store.size() == 0);
}
