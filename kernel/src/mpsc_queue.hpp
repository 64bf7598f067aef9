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
    void push(Node* node) noexcept {
        Link::next(*node).store(nullptr, std::memory_order_relaxed);
        Node* prev = tail_.exchange(node, std::memory_order_seq_cst);
        Link::next(*prev).store(node, std::memory_order_release);
    }

    /// Any thread: false when something may be queued. A hint only: while the
    /// consumer takes the last node as a push comes, it may say empty with
    /// that push's node inside, which the consumer is about to see.
    bool looks_empty() const noexcept { return tail_.load(std::memory_order_seq_cst) == &stub_; }

    /// Consumer only: true when something is queued or a push is midway.
    bool has_items() const noexcept {
        return head_ != &stub_ || Link::next(stub_).load(std::memory_order_acquire) != nullptr ||
               tail_.load(std::memory_order_seq_cst) != &stub_;
    }

    /// Consumer only. The oldest node, or nullptr (empty, or a push is midway).
    Node* pop() noexcept {
        Node* head = head_;
        Node* next = Link::next(*head).load(std::memory_order_acquire);
        if (head == &stub_) {
            if (!next) return nullptr;
            head_ = next;
            head = next;
            next = Link::next(*next).load(std::memory_order_acquire);
        }
        if (next) {
            head_ = next;
            return head;
        }
        if (head != tail_.load(std::memory_order_acquire)) return nullptr;  // a push is midway
        // `head` is the last node: put the stub behind it so it can leave.
        push(&stub_);
        next = Link::next(*head).load(std::memory_order_acquire);
        if (!next) return nullptr;  // another push came first and is midway
        head_ = next;
        return head;
    }

  private:
    /// Mutable: has_items() (const) reads its link.
    mutable Node stub_{};
    Node* head_;  ///< consumer only
    alignas(64) std::atomic<Node*> tail_;
};

}  // namespace rtkit::detail
