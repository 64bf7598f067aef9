#include "rtkit/detail/io_driver.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include "rtkit/reactor_support/thread_number.hpp"

namespace rtkit::detail {

io_driver::io_driver(std::shared_ptr<reactor> backend, std::string name)
    : backend_(std::move(backend)),
      name_(std::move(name)),
      limits_(backend_->limits()),
      thread_bound_(backend_->query_interface(thread_bound_reactor_name) != nullptr) {}

bool io_driver::claim_for_this_thread() noexcept {
    if (!thread_bound_) return true;
    const std::uint64_t me = reactor_support::this_thread_number();
    std::uint64_t none = 0;
    return home_.compare_exchange_strong(none, me, std::memory_order_relaxed) || none == me;
}

void io_driver::refuse(const std::string& why) const {
    throw std::system_error(EMFILE, std::generic_category(), "reactor " + name_ + " " + why);
}

io_token io_driver::add(int fd, interest what) {
    if (limits_.max_registrations != 0 && table_.size() >= limits_.max_registrations)
        refuse("holds at most " + std::to_string(limits_.max_registrations) +
               " registrations (its declared limit), and that many are open; close some, or "
               "configure a reactor without this limit");
    if (limits_.descriptor_limit != 0 && fd >= limits_.descriptor_limit)
        refuse("watches descriptor numbers below " + std::to_string(limits_.descriptor_limit) +
               " only (its declared limit), and this one is " + std::to_string(fd) +
               "; configure a reactor without this limit");
    const io_token token = table_.insert(fd, what);  // EBADF, EEXIST
    try {
        backend_->add(fd, token);
    } catch (...) {
        table_.erase(token);
        throw;
    }
    return token;
}

void io_driver::modify(io_token token, interest what) {
    table_.modify(token, what);
}

void io_driver::remove(io_token token) noexcept {
    entry* r = table_.find(token);
    if (!r) return;
    backend_->remove(r->fd, token);
    table_.erase(token);
}

void io_driver::withdraw(io_token token, interest want) noexcept {
    entry* r = table_.find(token);
    if (!r) return;
    const unsigned bits = static_cast<unsigned>(want);
    if (bits & ready::readable) r->reader.reset();
    if (bits & ready::writable) r->writer.reset();
}

void io_driver::deliver(io_token token, unsigned bits) noexcept {
    // A stale token (removed meanwhile, its slot perhaps reused) fails the
    // generation check: nothing of an old registration reaches a new one.
    if (entry* r = table_.find(token))
        if (table::deliver(*r, bits)) ++became_ready_;
}

std::size_t io_driver::poll(duration timeout) {
    became_ready_ = 0;
    const std::size_t completions = backend_->poll(timeout, *this);
    return completions + std::exchange(became_ready_, 0);
}

}  // namespace rtkit::detail
