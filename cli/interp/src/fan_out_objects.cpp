#include "fan_out_objects.hpp"

#include "operands.hpp"

namespace rtkit::interp {
namespace {

/// A subscription to a broadcast: the values sent after it was made.
class broadcast_subscription final : public subscription_object {
  public:
    /// `receiver` is empty for a subscription to a closed broadcast.
    explicit broadcast_subscription(
        std::optional<rtkit::sync::broadcast_receiver<script::value>> receiver)
        : receiver_(std::move(receiver)) {}

    rtkit::task<script::value> recv() override {
        auto turn = co_await receiver_.lock();
        if (!*turn) co_return script::value();
        for (;;) {
            rtkit::sync::broadcast_result<script::value> r = co_await (*turn)->recv();
            if (r) co_return std::move(r).value();
            if (!r.is_lagged()) co_return script::value();  // closed, every value taken
            missed_.fetch_add(static_cast<std::int64_t>(r.missed()));
        }
    }
    std::string display() const override { return "subscription"; }
    std::vector<std::string_view> field_names() const override { return {"missed"}; }
    script::value field(std::string_view name, script::source_pos where) const override {
        if (name == "missed") return missed_.load();
        return object::field(name, where);
    }
    void release_values() noexcept override { receiver_.get_unsynchronized().reset(); }

  private:
    rtkit::sync::mutex<std::optional<rtkit::sync::broadcast_receiver<script::value>>> receiver_;
    std::atomic<std::int64_t> missed_{0};  ///< values it skipped, in all
};

/// A subscription to a watch: the changes after it was made.
class watch_subscription final : public subscription_object {
  public:
    /// To a watch no longer there: recv gives none.
    watch_subscription() = default;
    explicit watch_subscription(rtkit::sync::watch_receiver<script::value> receiver)
        : receiver_(std::move(receiver)) {}

    rtkit::task<script::value> recv() override {
        auto turn = co_await receiver_.lock();
        if (!*turn || !co_await (*turn)->changed()) co_return script::value();
        co_return (*turn)->value_and_update();
    }
    std::string display() const override { return "subscription"; }
    void release_values() noexcept override { receiver_.get_unsynchronized().reset(); }

  private:
    rtkit::sync::mutex<std::optional<rtkit::sync::watch_receiver<script::value>>> receiver_;
};

}  // namespace

broadcast_object::broadcast_object(std::size_t capacity) : capacity_(capacity) {
    auto ends = rtkit::sync::make_broadcast<script::value>(capacity);
    sender_.emplace(std::move(ends.tx));  // its first receiver goes: subscriptions make their own
}

void broadcast_object::send(script::value v, script::source_pos where) {
    std::lock_guard guard(lock_);
    if (!sender_) fail(where, "send on a closed broadcast");
    sender_->send(std::move(v));
}

std::shared_ptr<subscription_object> broadcast_object::subscribe() {
    std::optional<rtkit::sync::broadcast_receiver<script::value>> receiver;
    {
        std::lock_guard guard(lock_);
        if (sender_) receiver.emplace(sender_->subscribe());
    }
    return std::make_shared<broadcast_subscription>(std::move(receiver));
}

void broadcast_object::close(script::source_pos where) {
    std::optional<rtkit::sync::broadcast_sender<script::value>> dropped;  // after the unlock
    std::lock_guard guard(lock_);
    if (!sender_) fail(where, "the broadcast is already closed");
    dropped.swap(sender_);
}

script::value broadcast_object::field(std::string_view name, script::source_pos where) const {
    if (name == "capacity") return static_cast<std::int64_t>(capacity_);
    if (name == "closed") {
        std::lock_guard guard(lock_);
        return !sender_;
    }
    return object::field(name, where);
}

void broadcast_object::release_values() noexcept {
    std::optional<rtkit::sync::broadcast_sender<script::value>> dropped;
    std::lock_guard guard(lock_);
    dropped.swap(sender_);
}

watch_object::watch_object(script::value initial)
    : watch_object(rtkit::sync::make_watch<script::value>(std::move(initial))) {}

watch_object::watch_object(rtkit::sync::watch<script::value> ends)
    : sender_(std::move(ends.tx)), reader_(std::move(ends.rx)) {}

void watch_object::send(script::value v, script::source_pos where) {
    script::value replaced;  // destroyed after the unlock
    std::lock_guard guard(lock_);
    if (!sender_) fail(where, "send on a closed watch");
    replaced = sender_->send_replace(std::move(v));
}

std::shared_ptr<subscription_object> watch_object::subscribe() {
    // The reader is only dropped once the script ended (release_values).
    if (!reader_) return std::make_shared<watch_subscription>();
    rtkit::sync::watch_receiver<script::value> receiver = *reader_;
    (void)receiver.value_and_update();  // it sees the changes from now on
    return std::make_shared<watch_subscription>(std::move(receiver));
}

void watch_object::close(script::source_pos where) {
    std::optional<rtkit::sync::watch_sender<script::value>> dropped;
    std::lock_guard guard(lock_);
    if (!sender_) fail(where, "the watch is already closed");
    dropped.swap(sender_);
}

script::value watch_object::field(std::string_view name, script::source_pos where) const {
    if (name == "value") return reader_ ? reader_->value() : script::value();
    if (name == "closed") {
        std::lock_guard guard(lock_);
        return !sender_;
    }
    return object::field(name, where);
}

void watch_object::release_values() noexcept {
    std::optional<rtkit::sync::watch_sender<script::value>> dropped;
    std::lock_guard guard(lock_);
    dropped.swap(sender_);
    reader_.reset();  // with the subscriptions gone too, the value goes
}

}  // namespace rtkit::interp
