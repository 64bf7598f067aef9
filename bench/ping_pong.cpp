#include "ping_pong.hpp"

#include "rtkit/cx.hpp"
#include "rtkit/sync/channel.hpp"

namespace {

using rtkit::sync::channel_receiver;
using rtkit::sync::channel_sender;

rtkit::task<std::int64_t> ping(std::int64_t round_trips, channel_sender<std::int64_t> to_pong,
                               channel_receiver<std::int64_t> from_pong) {
    std::int64_t counter = 0;
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < round_trips; ++i) {
        if (!co_await to_pong.send(counter)) co_return -1;
        std::optional<std::int64_t> reply = co_await from_pong.recv();
        if (!reply) co_return -1;
        counter = *reply;
        sum += counter;
    }
    // Parameters live as long as the frame (until the join handle goes), so
    // drop the sender by hand: that ends pong's loop.
    { auto done = std::move(to_pong); }
    co_return sum;
}

rtkit::task<std::int64_t> pong(channel_receiver<std::int64_t> from_ping,
                               channel_sender<std::int64_t> to_ping) {
    std::int64_t replies = 0;
    while (std::optional<std::int64_t> v = co_await from_ping.recv()) {
        if (!co_await to_ping.send(*v + 1)) break;
        ++replies;
    }
    co_return replies;
}

}  // namespace

rtkit::task<std::int64_t> rtbench_ping_pong(std::int64_t round_trips) {
    auto [a_tx, b_rx] = rtkit::sync::make_channel<std::int64_t>(1);
    auto [b_tx, a_rx] = rtkit::sync::make_channel<std::int64_t>(1);
    auto b = rtkit::spawn(pong(std::move(b_rx), std::move(b_tx)));
    auto a = rtkit::spawn(ping(round_trips, std::move(a_tx), std::move(a_rx)));
    std::int64_t sum = (co_await std::move(a)).value();
    (void)(co_await std::move(b)).value();
    co_return sum;
}
