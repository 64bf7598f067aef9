#include "channel_object.hpp"

#include "operands.hpp"

namespace rtkit::interp {
namespace {

/// make_channel's two ends, for the member initialisers.
rtkit::sync::channel<script::value> make(std::size_t capacity) {
    return rtkit::sync::make_channel<script::value>(capacity);
}

}  // namespace

channel_object::channel_object(std::size_t capacity) : channel_object(capacity, make(capacity)) {}

channel_object::channel_object(std::size_t capacity, rtkit::sync::channel<script::value> ends)
    : capacity_(capacity), sender_(std::move(ends.tx)), receiver_(std::move(ends.rx)) {}

rtkit::task<void> channel_object::send(script::value v, script::source_pos where) {
    std::optional<rtkit::sync::channel_sender<script::value>> sender;
    {
        std::lock_guard guard(lock_);
        if (!sender_) fail(where, "send on a closed channel");
        sender = *sender_;  // a sender of our own: close() may drop the shared one meanwhile
    }
    co_await sender->send(std::move(v));
}

rtkit::task<script::value> channel_object::recv() {
    auto turn = co_await receiving_.lock();
    std::optional<script::value> v = co_await receiver_.recv();
    if (!v) co_return script::value();
    co_return std::move(*v);
}

void channel_object::close(script::source_pos where) {
    std::optional<rtkit::sync::channel_sender<script::value>> dropped;
    std::lock_guard guard(lock_);
    if (!sender_) fail(where, "the channel is already closed");
    dropped = std::move(sender_);
    sender_.reset();
}

script::value channel_object::field(std::string_view name, script::source_pos where) const {
    if (name == "capacity") return static_cast<std::int64_t>(capacity_);
    if (name == "size") return static_cast<std::int64_t>(receiver_.size());
    if (name == "closed") {
        std::lock_guard guard(lock_);
        return !sender_;
    }
    return object::field(name, where);
}

void channel_object::release_values() noexcept {
    {
        std::optional<rtkit::sync::channel_sender<script::value>> dropped;
        std::lock_guard guard(lock_);
        dropped = std::move(sender_);
        sender_.reset();
    }
    while (receiver_.try_recv()) {
    }
}

}  // namespace rtkit::interp
