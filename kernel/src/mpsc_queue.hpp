#pragma once
// An intrusive multi-producer, single-consumer queue (Dmitry Vyukov's): a push
// is one atomic exchange and one store, from any thread, with no lock; the one
// consumer pops without atomic read-modify-writes.
#include <atomic>
#include <cstddef>

namespace rtkit::detail {

/// `Node` is any type; `Link` says where a node keeps its next pointer, as a
/// static `std::atomic_ref<Node*> next(Node&)` (a plain pointer field, always
/// accessed through atomic_ref while the node is in the queue). A node is in at most one queue at
/// a time, and stays valid until the consumer pops it.
///
/// A push that has exchanged the tail but not yet linked its node makes the
/// queue look empty past that point for a moment: pop() then returns nullptr
/// although empty() is false, and the consumer looks again later (the pushing
/// thread is between two instructions). Producers that then wake the consumer
/// do so after linking, so the consumer always finds their node.
template <class Node, class Link>
class mpsc_queue {
  public:
    mpsc_queue() noexcept : head_(&stub_), tail_(&stub_) { Link::next(stub_).store(nullptr); }
    mpsc_queue(const mpsc_queue&) = delete;
    mpsc_queue& operator=(const mpsc_queue&) = delete;

    /// Any thread. seq_cst: a producer that then reads whether the consumer
    /// is parked pairs with a consumer that marks itself parked and then
    /// looks at the queue (one of the two sees the other).
    void push(Node* node) noexcept { link(publish(node), node); }

    /// The two steps of push(), apart so that a test can stand between them
    /// as a concurrent producer does: publish() makes `node` the tail and
    /// returns the node before it; link() then makes it reachable from there.
    Node* publish(Node* node) noexcept {
        Link::next(*node).store(nullptr, std::memory_order_relaxed);
        return tail_.exchange(node, std::memory_order_seq_cst);
    }
    void link(Node* prev, Node* node) noexcept {
        Link::next(*prev).store(node, std::memory_order_release);
    }

    /// Any thread: false when something may be queued, true only when the
    /// queue is empty or a push into it is still under way (whose producer
    /// then wakes the consumer). The tail alone is not enough: when the
    /// consumer puts the stub behind what it took for the last node while a
    /// push comes, the tail is the stub with that node and the pushed one
    /// still in front of it; the head, not yet at the stub, tells.
    bool looks_empty() const noexcept {
        return tail_.load(std::memory_order_seq_cst) == &stub_ &&
               head_.load(std::memory_order_acquire) == &stub_;
    }

    /// Consumer only: true when something is queued or a push is midway.
    bool has_items() const noexcept {
        return head_.load(std::memory_order_relaxed) != &stub_ ||
               Link::next(stub_).load(std::memory_order_acquire) != nullptr ||
               tail_.load(std::memory_order_seq_cst) != &stub_;
    }

    /// Consumer only. The oldest node, or nullptr (empty, or a push is midway).
    Node* pop() noexcept {
        Node* head = head_.load(std::memory_order_relaxed);
        Node* next = Link::next(*head).load(std::memory_order_acquire);
        if (head == &stub_) {
            if (!next) return nullptr;
            set_head(next);
            head = next;
            next = Link::next(*next).load(std::memory_order_acquire);
        }
        if (next) {
            set_head(next);
            return head;
        }
        if (head != tail_.load(std::memory_order_acquire)) return nullptr;  // a push is midway
        // `head` is the last node: put the stub behind it so it can leave.
        push(&stub_);
        next = Link::next(*head).load(std::memory_order_acquire);
        if (!next) return nullptr;  // another push came first and is midway
        set_head(next);
        return head;
    }

  private:
    /// Release: a thread that reads the new head in looks_empty() sees the
    /// queue as it was when the head moved.
    void set_head(Node* head) noexcept { head_.store(head, std::memory_order_release); }

    /// Mutable: has_items() (const) reads its link.
    mutable Node stub_{};
    /// Written by the consumer only; read by looks_empty() on any thread.
    std::atomic<Node*> head_;
    alignas(64) std::atomic<Node*> tail_;
};

}  // namespace rtkit::detail
