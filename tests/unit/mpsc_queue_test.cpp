// The intrusive MPSC queue behind every worker's inbox and the multi-thread
// injector. Its hint, looks_empty(), is what a worker reads just before it
// parks: a node it hides is a task nobody runs until the next push.
#include <doctest/doctest.h>

#include <atomic>
#include <utility>
#include <vector>

#include "mpsc_queue.hpp"

namespace {

struct node {
    node* next = nullptr;
    int value = 0;  ///< 0 only in the queue's own stub node
};
using queue = rtkit::detail::mpsc_queue<node, struct node_link>;

/// A producer's publish() of `interleave_node` made to land inside the
/// consumer's pop(): just before the queue touches its stub's link for the
/// `interleave_at`-th time (pop reads it first, then, having found the last
/// node, resets it to put the stub behind that node).
queue* interleave_queue = nullptr;
node* interleave_node = nullptr;
int interleave_at = 0;
node* interleave_prev = nullptr;

struct node_link {
    static std::atomic_ref<node*> next(node& n) noexcept {
        if (n.value == 0 && interleave_node && --interleave_at == 0)
            interleave_prev = interleave_queue->publish(std::exchange(interleave_node, nullptr));
        return std::atomic_ref<node*>(n.next);
    }
};

}  // namespace

TEST_CASE("an mpsc queue gives its nodes back in push order") {
    queue q;
    CHECK(q.looks_empty());
    CHECK(q.pop() == nullptr);
    std::vector<node> nodes(5);
    for (int i = 0; i < 5; ++i) {
        nodes[i].value = i + 1;
        q.push(&nodes[i]);
        CHECK_FALSE(q.looks_empty());
    }
    for (int i = 0; i < 5; ++i) {
        node* n = q.pop();
        REQUIRE(n != nullptr);
        CHECK(n->value == i + 1);
    }
    CHECK(q.pop() == nullptr);
    CHECK(q.looks_empty());
    CHECK_FALSE(q.has_items());
}

// The consumer takes the last node while a producer is between the two steps
// of its push (tail exchanged, link not yet written): pop() cannot reach the
// new node yet and returns nothing now. Until the consumer has taken both
// nodes the queue must not look empty, or a worker parks on top of them.
TEST_CASE("an mpsc queue does not look empty while its last pop meets a push midway") {
    queue q;
    node first{nullptr, 1}, second{nullptr, 2};
    q.push(&first);
    // The producer's exchange lands after the consumer saw `first` as the
    // tail, just before it puts the stub behind it.
    interleave_queue = &q;
    interleave_node = &second;
    interleave_at = 2;
    CHECK(q.pop() == nullptr);
    REQUIRE(interleave_prev == &first);
    CHECK_FALSE(q.looks_empty());
    CHECK(q.has_items());
    q.link(interleave_prev, &second);  // the producer finishes its push
    CHECK_FALSE(q.looks_empty());
    node* a = q.pop();
    node* b = q.pop();
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(a->value == 1);
    CHECK(b->value == 2);
    CHECK(q.pop() == nullptr);
    CHECK(q.looks_empty());
}

TEST_CASE("an mpsc queue does not look empty while a pop meets a push midway") {
    queue q;
    node first{nullptr, 1}, second{nullptr, 2};
    q.push(&first);
    node* const before_second = q.publish(&second);  // the producer stops midway
    CHECK(q.pop() == nullptr);  // `first` cannot leave before `second` is linked
    CHECK_FALSE(q.looks_empty());
    q.link(before_second, &second);
    CHECK(q.pop() == &first);
    CHECK(q.pop() == &second);
    CHECK(q.looks_empty());
}
