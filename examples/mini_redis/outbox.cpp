#include "outbox.hpp"

#include <system_error>

namespace mini_redis {

outbox::outbox(std::size_t byte_limit)
    : outbox(rtkit::sync::make_channel<std::string>(max_chunks), byte_limit) {}

outbox::outbox(rtkit::sync::channel<std::string> queue, std::size_t byte_limit)
    : sender_(std::move(queue.tx)), receiver_(std::move(queue.rx)), byte_limit_(byte_limit) {}

bool outbox::push(std::string bytes) {
    if (!sender_ || writer_stopped_.load(std::memory_order_relaxed)) return false;
    if (queued_bytes_.load(std::memory_order_relaxed) >= byte_limit_) return false;
    // Counted before the writer can take it, so its subtraction never comes first.
    const std::size_t size = bytes.size();
    queued_bytes_.fetch_add(size, std::memory_order_relaxed);
    if (sender_->try_send(std::move(bytes)) == rtkit::sync::try_send_result::sent) return true;
    queued_bytes_.fetch_sub(size, std::memory_order_relaxed);
    return false;
}

rtkit::task<void> outbox::write_to(rtkit::net::byte_stream& stream) {
    struct mark_stopped {
        std::atomic<bool>& stopped;
        ~mark_stopped() { stopped.store(true, std::memory_order_relaxed); }
    } on_exit{writer_stopped_};
    std::string pending;
    while (std::optional<std::string> first = co_await receiver_.recv()) {
        pending = std::move(*first);
        while (pending.size() < max_write) {
            std::optional<std::string> more = receiver_.try_recv();
            if (!more) break;
            pending += *more;
        }
        std::size_t written = 0;
        try {
            while (written < pending.size())
                written +=
                    co_await stream.write(pending.data() + written, pending.size() - written);
        } catch (const std::system_error&) {
            co_return;  // the client is gone: push() fails from now on
        }
        queued_bytes_.fetch_sub(pending.size(), std::memory_order_relaxed);
    }
}

void outbox::close() noexcept {
    sender_.reset();
}

}  // namespace mini_redis
